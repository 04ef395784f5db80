"""Business actions of the reviews app, one module per area: cards, reviewing, reminders,
notifications."""
