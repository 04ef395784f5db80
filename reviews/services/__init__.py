"""Business actions of the reviews app, one module per area: cards, reviewing, reminder planning,
reminder sending, reminder unsubscribe, notifications."""
