FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
WORKDIR /app
COPY pyproject.toml README.md ./
COPY . .
RUN pip install --no-cache-dir .
RUN useradd --create-home lernpfad && chown -R lernpfad /app
USER lernpfad
EXPOSE 8000
CMD ["gunicorn", "-c", "python:lms.gunicorn_conf", "lms.wsgi:application"]
