"""Business actions of the quizzes app, one module per area (quick checks, item bank, attempts)."""
