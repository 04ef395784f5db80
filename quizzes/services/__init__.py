"""Business actions of the quizzes app, one module per action or area: quick checks, the item
bank and policy, and an attempt's start, answers and finalization."""
