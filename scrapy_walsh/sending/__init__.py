"""What runs at send time: admission, pacing, the queue and the checkpoint before the network."""
