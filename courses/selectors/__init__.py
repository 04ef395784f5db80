"""Read queries of the courses app, each with the joins it needs."""
