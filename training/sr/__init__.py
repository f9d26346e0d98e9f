"""Training pipeline for the upscaling service's own super-resolution networks."""
