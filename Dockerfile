# Lernpfad's production image: gunicorn, Celery worker and beat all run from it (docker-compose.yml).
FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
WORKDIR /app
# The certificate PDF is set in DejaVu Sans (any letter of a learner's name, not only Latin-1).
RUN apt-get update && apt-get install -y --no-install-recommends fonts-dejavu-core \
    && rm -rf /var/lib/apt/lists/*
# What is copied is filtered by .dockerignore: no .env (secrets), virtualenv, database or cache.
COPY . .
RUN pip install --no-cache-dir .
# The static files belong to the image: the production settings serve them through whitenoise
# from the manifest collectstatic writes (hashed names), and without it every page answers 500.
# The production settings insist on their variables; these placeholders exist for this one
# command only (collectstatic connects to neither database nor broker) and are not in the image.
RUN DJANGO_SETTINGS_MODULE=lms.settings.production \
    DJANGO_SECRET_KEY=collectstatic-at-build-time-only-not-a-secret \
    DJANGO_ALLOWED_HOSTS=localhost \
    DATABASE_URL=postgres://collectstatic-opens-no-database@127.0.0.1:1/none \
    CELERY_BROKER_URL=memory:// \
    python manage.py collectstatic --noinput
# The code stays root's: the runtime user reads it but cannot change it (nothing writes there
# at run time; tests/lms/test_production_image.py checks).
RUN useradd --create-home --uid 10001 lernpfad
USER lernpfad
EXPOSE 8000
CMD ["gunicorn", "-c", "python:lms.gunicorn_conf", "lms.wsgi:application"]
