"""Write operations of the courses app (one module per business area)."""
