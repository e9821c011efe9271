from torch.nn import modules  # noqa: F401
from torch.nn.modules.module import Module, ModuleList, Linear  # noqa: F401
