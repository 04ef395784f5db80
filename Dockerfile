FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
WORKDIR /app
# The certificate PDF is set in DejaVu Sans (any letter of a learner's name, not only Latin-1).
RUN apt-get update && apt-get install -y --no-install-recommends fonts-dejavu-core \
    && rm -rf /var/lib/apt/lists/*
COPY pyproject.toml README.md ./
COPY . .
RUN pip install --no-cache-dir .
RUN useradd --create-home lernpfad && chown -R lernpfad /app
USER lernpfad
EXPOSE 8000
CMD ["gunicorn", "-c", "python:lms.gunicorn_conf", "lms.wsgi:application"]
