"""Settings package: ``base`` holds everything shared; dev, test and production adjust it."""
