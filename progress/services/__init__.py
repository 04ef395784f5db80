"""Write operations of the progress app: one module per business area."""
