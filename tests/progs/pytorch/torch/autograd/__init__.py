from torch.autograd import profiler  # noqa: F401
