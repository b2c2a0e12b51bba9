"""torchvision models for the corpus, built from their constructors with random weights.

Every builder returns (model, make_inputs, default_shapes): make_inputs(shape) gives the
positional and keyword arguments of one call, shape being (batch, resolution).
"""
import torch
import torchvision
from torchvision.models import detection, segmentation, video


def images(dev, shape, channels=3):
    batch, res = shape
    return (torch.randn(batch, channels, res, res, device=dev),), {}


def classifier(ctor, res=224, batch=2, **kwargs):
    """A builder for torchvision.models.<ctor>(weights=None, **kwargs) fed RES x RES images."""

    def build(dev):
        model = getattr(torchvision.models, ctor)(weights=None, **kwargs)
        return model, lambda shape: images(dev, shape), [(batch, res)]

    return build


def small_vit(image_size, patch_size, layers, heads, hidden, mlp):
    """torchvision's VisionTransformer class with fewer, narrower layers than ViT-B/16."""

    def build(dev):
        from torchvision.models.vision_transformer import VisionTransformer

        model = VisionTransformer(image_size=image_size, patch_size=patch_size, num_layers=layers,
                                  num_heads=heads, hidden_dim=hidden, mlp_dim=mlp)
        return model, lambda shape: images(dev, shape), [(2, image_size)]

    return build


def small_maxvit(dev):
    """torchvision's MaxVit class with one block per stage (MaxViT-T has 2, 2, 5, 2)."""
    from torchvision.models.maxvit import MaxVit

    model = MaxVit(input_size=(224, 224), stem_channels=64, partition_size=7,
                   block_channels=[64, 128, 256, 512], block_layers=[1, 1, 1, 1], head_dim=32,
                   stochastic_depth_prob=0.0)
    return model, lambda shape: images(dev, shape), [(2, 224)]


def lraspp(dev):
    model = segmentation.lraspp_mobilenet_v3_large(weights=None, weights_backbone=None)
    return model, lambda shape: images(dev, shape), [(2, 256)]


def fcn(dev):
    """FCN-ResNet50: a ResNet-50 with dilated layer3/layer4 (stride 8), a bilinear upsampling."""
    model = segmentation.fcn_resnet50(weights=None, weights_backbone=None, aux_loss=False)
    return model, lambda shape: images(dev, shape), [(2, 256)]


def ssdlite(dev):
    """SSDlite detection: a list of images in, boxes out (NMS and top-k in its post-processing)."""
    model = detection.ssdlite320_mobilenet_v3_large(weights=None, weights_backbone=None)

    def inputs(shape):
        batch, res = shape
        return ([torch.rand(3, res, res, device=dev) for _ in range(batch)],), {}

    return model, inputs, [(2, 320)]


def r3d(dev):
    """A 3-D ResNet for video clips: conv3d, batch norm 3-D."""
    model = video.r3d_18(weights=None)

    def inputs(shape):
        batch, res = shape
        return (torch.randn(batch, 3, 8, res, res, device=dev),), {}

    return model, inputs, [(1, 112)]


BUILDERS = {
    "resnet18": classifier("resnet18", batch=8),
    "resnet50": classifier("resnet50", batch=4),
    "resnext50_32x4d": classifier("resnext50_32x4d", batch=4),
    "regnet_y_400mf": classifier("regnet_y_400mf", batch=4),
    "densenet121": classifier("densenet121"),
    "mobilenet_v3_small": classifier("mobilenet_v3_small", batch=8),
    "mobilenet_v3_large": classifier("mobilenet_v3_large", batch=4),
    "efficientnet_b0": classifier("efficientnet_b0", batch=4),
    "efficientnet_v2_s": classifier("efficientnet_v2_s", batch=2),
    "vit_b_16": classifier("vit_b_16", batch=2),
    "convnext_tiny": classifier("convnext_tiny"),
    "vit_small": small_vit(224, 16, layers=4, heads=6, hidden=384, mlp=1536),
    "vit_tiny": small_vit(64, 8, layers=2, heads=4, hidden=192, mlp=768),
    "swin_t": classifier("swin_t"),
    "maxvit_small": small_maxvit,
    "squeezenet1_1": classifier("squeezenet1_1", batch=4),
    "mobilenet_v2": classifier("mobilenet_v2", batch=8),
    "vgg11_bn": classifier("vgg11_bn", batch=2),
    "shufflenet_v2_x1_0": classifier("shufflenet_v2_x1_0", batch=4),
    "inception_v3": classifier("inception_v3", res=299, aux_logits=False, init_weights=False),
    "googlenet": classifier("googlenet", aux_logits=False, init_weights=False),
    "alexnet": classifier("alexnet"),
    "lraspp_mobilenet_v3_large": lraspp,
    "ssdlite320_mobilenet_v3_large": ssdlite,
    "fcn_resnet50": fcn,
    "r3d_18": r3d,
}
