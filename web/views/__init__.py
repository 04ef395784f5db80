"""Views of the learner's web pages: thin, each calls the same services and selectors as the API."""
