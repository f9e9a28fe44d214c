"""What a reader reads: the book (`book`: mdBook with what real runs generated), the notebooks (`notebooks`:
Jupyter executing them), and the book's coloured TLA+ listings (`tla_listings`, mdBook's preprocessor)."""
