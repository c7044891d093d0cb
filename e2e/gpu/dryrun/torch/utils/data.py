class IterableDataset:
    pass
