"""The corpus: which model each capture compiles, and how (dtype, mode, training, layout, shapes).

Importing this module needs no PyTorch, so the driver can plan captures without it.
"""
from dataclasses import dataclass


@dataclass(frozen=True)
class Capture:
    name: str
    family: str  # torchvision | transformers | hand
    model: str  # a key of the family's BUILDERS, or "recompiles:<group>"
    dtype: str = "float32"  # float32 | bfloat16 (weights) | bfloat16-autocast | float16-autocast
    mode: str = "default"  # torch.compile's mode
    training: bool = False  # forward, loss.backward() and an optimizer step
    channels_last: bool = False
    dynamic: bool = False  # torch.compile(dynamic=True), then a second shape
    shapes: tuple = ()  # the shapes to run, in order; () takes the builder's
    optimizer: str = ""  # sgd | adamw, "-compiled" when its step is compiled too
    grad_scaler: bool = False  # the loss scaled by torch.amp.GradScaler (fp16 training)
    repeats: int = 0  # calls per shape; 0: 3 under CUDA graphs (recorded after warm-up), else 2
    dynamo: tuple = ()  # (name, value) pairs set on torch._dynamo.config
    seconds: int = 60  # rough capture time on the H200, for scheduling the longest first
    about: str = ""  # what the capture is for, for the README's table


def tv(name, model, **kw):
    return Capture(name, "torchvision", model, **kw)


def hf(name, model, **kw):
    return Capture(name, "transformers", model, **kw)


def hand(name, model, **kw):
    return Capture(name, "hand", model, **kw)


BF16, FP16 = "bfloat16-autocast", "float16-autocast"
MA, MA_NO_CG, RO = "max-autotune", "max-autotune-no-cudagraphs", "reduce-overhead"

CAPTURES = [
    # torchvision
    tv("tv_resnet18_train_bf16", "resnet18", dtype=BF16, training=True, optimizer="sgd-compiled",
       seconds=150, about="batch-norm backward, compiled SGD step"),
    tv("tv_resnext50_cl_fp16", "resnext50_32x4d", dtype=FP16, channels_last=True, seconds=80,
       about="grouped convolutions, channels-last"),
    tv("tv_regnet_y_400mf_cl", "regnet_y_400mf", channels_last=True, seconds=80,
       about="squeeze-excite, grouped convolutions"),
    tv("tv_densenet121", "densenet121", seconds=120, about="concatenations feeding batch norms"),
    tv("tv_mobilenet_v3_small_ro", "mobilenet_v3_small", mode=RO, seconds=80,
       about="hardswish, squeeze-excite, CUDA graphs"),
    tv("tv_mobilenet_v3_large_dynamic_bf16", "mobilenet_v3_large", dtype=BF16, dynamic=True,
       shapes=((4, 224), (6, 224)), seconds=100, about="symbolic batch size"),
    tv("tv_efficientnet_b0_train_bf16", "efficientnet_b0", dtype=BF16, training=True,
       optimizer="adamw", seconds=180, about="SiLU, squeeze-excite mean, backward"),
    tv("tv_convnext_tiny_cl_fp16", "convnext_tiny", dtype=FP16, channels_last=True, seconds=100,
       about="depthwise 7x7, layer norm over permutes"),
    tv("tv_vit_small_train_bf16", "vit_small", dtype=BF16, training=True, optimizer="adamw",
       seconds=120, about="VisionTransformer class (4 layers, 384 wide), backward"),
    tv("tv_vit_tiny_max_autotune", "vit_tiny", mode=MA, seconds=200,
       about="GEMM templates on a 2-layer ViT"),
    tv("tv_swin_t", "swin_t", seconds=120, about="shifted windows, relative position bias"),
    tv("tv_maxvit_small", "maxvit_small", seconds=150,
       about="MaxVit class (1 block a stage): MBConv, block and grid attention"),
    tv("tv_squeezenet1_1", "squeezenet1_1", seconds=60, about="concatenated fire modules"),
    tv("tv_shufflenet_v2_fp16", "shufflenet_v2_x1_0", dtype=FP16, seconds=80,
       about="channel shuffle (view, transpose, chunk)"),
    tv("tv_inception_v3", "inception_v3", seconds=120, about="299x299 input, many branches"),
    tv("tv_googlenet_ro_bf16", "googlenet", dtype=BF16, mode=RO, seconds=100,
       about="inception branches under CUDA graphs"),
    tv("tv_alexnet_dynamic", "alexnet", dynamic=True, shapes=((2, 224), (3, 224)), seconds=60,
       about="adaptive pooling and large linears, symbolic batch"),
    tv("tv_lraspp_mobilenet_v3", "lraspp_mobilenet_v3_large", seconds=100,
       about="segmentation head, bilinear upsampling"),
    tv("tv_ssdlite320_detection", "ssdlite320_mobilenet_v3_large", seconds=150,
       about="detection: anchors, NMS and top-k in post-processing"),
    tv("tv_r3d_18_video", "r3d_18", seconds=80, about="3-D convolutions"),
    tv("tv_regnet_y_400mf_train_ro_fp16", "regnet_y_400mf", dtype=FP16, training=True,
       channels_last=True, mode=RO, optimizer="sgd", grad_scaler=True, seconds=200,
       about="fp16 training step with a GradScaler, channels-last, CUDA graphs"),
    tv("tv_resnet50_train", "resnet50", training=True, optimizer="sgd", seconds=200,
       about="fp32 training step, bottleneck blocks' backward"),
    tv("tv_resnet50_train_cl_bf16", "resnet50", dtype=BF16, training=True, channels_last=True,
       optimizer="adamw", seconds=200, about="bf16 training step, channels-last"),
    tv("tv_regnet_y_400mf_train", "regnet_y_400mf", training=True, optimizer="sgd", seconds=150,
       about="fp32 training step: grouped convolutions' and squeeze-excite's backward"),
    tv("tv_efficientnet_v2_s_train_fp16", "efficientnet_v2_s", dtype=FP16, training=True,
       optimizer="sgd", grad_scaler=True, seconds=300,
       about="fused MBConv, fp16 training step with a GradScaler"),
    tv("tv_vit_b_16_train_bf16", "vit_b_16", dtype=BF16, training=True, optimizer="adamw",
       seconds=240, about="ViT-B/16 (12 layers, 768 wide), backward"),
    tv("tv_swin_t_train_bf16", "swin_t", dtype=BF16, training=True, optimizer="adamw",
       seconds=300, about="shifted windows' backward"),
    tv("tv_fcn_resnet50", "fcn_resnet50", seconds=150,
       about="segmentation: dilated convolutions, bilinear upsampling"),
    tv("tv_fcn_resnet50_train_bf16", "fcn_resnet50", dtype=BF16, training=True,
       channels_last=True, optimizer="sgd", seconds=240,
       about="bf16 channels-last training step through dilated convolutions"),
    # transformers
    hf("hf_gpt2_train", "gpt2", training=True, optimizer="adamw", seconds=100,
       about="GPT-2 (2 layers, 256 wide), backward"),
    hf("hf_gpt2_train_dynamic", "gpt2", training=True, dynamic=True, shapes=((2, 64), (2, 96)),
       optimizer="adamw", seconds=140, about="backward with a symbolic sequence length"),
    hf("hf_gpt2_max_autotune", "gpt2_1layer", mode=MA, seconds=200, about="GPT-2 1 layer"),
    hf("hf_llama_train_bf16", "llama", dtype=BF16, training=True, optimizer="adamw", seconds=130,
       about="RMSNorm, rotary, SwiGLU, GQA, backward"),
    hf("hf_llama_train_bf16_weights", "llama", dtype="bfloat16", training=True,
       optimizer="adamw", seconds=130, about="bf16 weights and optimizer state, backward"),
    hf("hf_llama_dynamic", "llama", dynamic=True, shapes=((2, 64), (2, 96)), seconds=90,
       about="symbolic sequence length"),
    hf("hf_llama_max_autotune_bf16", "llama_1layer", dtype=BF16, mode=MA, seconds=220),
    hf("hf_mistral_fp16", "mistral", dtype=FP16, seconds=80, about="sliding-window mask"),
    hf("hf_qwen2_bf16_ro", "qwen2", dtype="bfloat16", mode=RO, seconds=90,
       about="bf16 weights, CUDA graphs"),
    hf("hf_phi", "phi", seconds=80, about="partial rotary, parallel attention and MLP"),
    hf("hf_phi3_bf16", "phi3", dtype=BF16, seconds=80, about="fused qkv and gate-up projections"),
    hf("hf_gemma_max_autotune", "gemma_1layer", mode=MA, seconds=200, about="GeGLU, MQA"),
    hf("hf_mixtral_bf16", "mixtral", dtype=BF16, seconds=120, about="HF's MoE routing"),
    hf("hf_gpt_neox_ro", "gpt_neox", mode=RO, seconds=90, about="CUDA graphs"),
    hf("hf_bert_mlm_train_fp16", "bert_mlm", dtype=FP16, training=True, optimizer="adamw",
       seconds=110, about="masked LM, backward under fp16"),
    hf("hf_bert_max_autotune_fp16", "bert_1layer", dtype=FP16, mode=MA, seconds=200),
    hf("hf_roberta_dynamic", "roberta_cls", dynamic=True, shapes=((2, 64), (2, 100)),
       seconds=90, about="symbolic sequence length, classifier head"),
    hf("hf_distilbert_max_autotune_no_cudagraphs", "distilbert", mode=MA_NO_CG, seconds=200),
    hf("hf_deberta_v2", "deberta_v2", seconds=120, about="disentangled relative attention"),
    hf("hf_t5_train_bf16", "t5", dtype=BF16, training=True, optimizer="adamw", seconds=180,
       about="encoder-decoder, relative position bias, backward"),
    hf("hf_albert_train", "albert_mlm", training=True, optimizer="adamw", seconds=110,
       about="one layer's weights shared by every layer, factorized embedding, backward"),
    hf("hf_mobilevit", "mobilevit", seconds=100,
       about="convolutions unfolded into patches for attention"),
    hf("hf_bart", "bart", seconds=100, about="encoder-decoder"),
    hf("hf_whisper_fp16", "whisper", dtype=FP16, seconds=100,
       about="conv1d front end, 3000 frames"),
    hf("hf_wav2vec2", "wav2vec2", seconds=90, about="conv feature extractor, group norm"),
    hf("hf_clip_bf16", "clip", dtype=BF16, seconds=100, about="text and vision towers"),
    # models and set-ups the rules were not written on: captured after the rules above, to
    # measure how they carry over before anything is changed for them
    tv("tv_convnext_tiny_train_bf16", "convnext_tiny", dtype=BF16, training=True,
       optimizer="adamw", seconds=240, about="layer norm over permutes, depthwise 7x7 backward"),
    tv("tv_mobilenet_v2_train_cl_fp16", "mobilenet_v2", dtype=FP16, training=True,
       channels_last=True, optimizer="sgd", grad_scaler=True, seconds=200,
       about="inverted residuals' backward, fp16 channels-last with a GradScaler"),
    tv("tv_vgg11_bn_cl_bf16_weights", "vgg11_bn", dtype="bfloat16", channels_last=True,
       seconds=90, about="bf16 weights, channels-last, large linears"),
    tv("tv_resnet50_dynamic_cl_bf16", "resnet50", dtype=BF16, channels_last=True, dynamic=True,
       shapes=((4, 224), (4, 160)), seconds=150, about="symbolic image size, channels-last"),
    tv("tv_efficientnet_b0_max_autotune_no_cudagraphs_fp16", "efficientnet_b0", dtype=FP16,
       mode=MA_NO_CG, seconds=300, about="convolution and GEMM autotuning"),
    hf("hf_bart_train_fp16", "bart", dtype=FP16, training=True, optimizer="adamw",
       grad_scaler=True, seconds=180, about="encoder-decoder backward, fp16 with a GradScaler"),
    hf("hf_mistral_train_bf16", "mistral", dtype=BF16, training=True, optimizer="adamw",
       seconds=150, about="sliding-window attention's backward"),
    hf("hf_distilbert_train_dynamic", "distilbert", training=True, dynamic=True,
       shapes=((2, 64), (2, 96)), optimizer="adamw", seconds=150,
       about="backward with a symbolic sequence length"),
    hf("hf_deberta_v2_train_bf16", "deberta_v2", dtype=BF16, training=True, optimizer="adamw",
       seconds=180, about="disentangled attention's backward"),
    hf("hf_mixtral_train_bf16", "mixtral", dtype=BF16, training=True, optimizer="adamw",
       seconds=180, about="MoE routing's backward"),
    hf("hf_gemma_train_ro_bf16", "gemma_1layer", dtype=BF16, training=True, mode=RO,
       optimizer="adamw", seconds=150, about="training under CUDA graphs"),
    hf("hf_clip_train_fp16", "clip", dtype=FP16, training=True, optimizer="adamw",
       grad_scaler=True, seconds=180, about="two towers' backward, fp16 with a GradScaler"),
    # hand-written
    hand("hand_mlp_max_autotune_bf16", "residual_mlp", dtype=BF16, mode=MA, seconds=150),
    hand("hand_mlp_train_compiled_adamw", "residual_mlp", training=True,
         optimizer="adamw-compiled", seconds=100, about="compiled AdamW step (foreach ops)"),
    hand("hand_moe_topk_max_autotune_bf16", "topk_moe", dtype=BF16, mode=MA, seconds=180,
         about="top-k routing, index_add dispatch, gather, bmm templates"),
    hand("hand_moe_topk_train", "topk_moe", training=True, optimizer="adamw", seconds=90,
         about="scatter and gather backward"),
    hand("hand_moe_sparse_unbacked_bf16", "sparse_moe", dtype=BF16, seconds=90,
         dynamo=(("capture_dynamic_output_shape_ops", True), ("capture_scalar_outputs", True)),
         about="torch.where routing traced with unbacked sizes"),
    hand("hand_lstm_loop_train", "recurrent", training=True, optimizer="sgd", seconds=90,
         dynamo=(("allow_rnn", True),), about="nn.LSTM, LSTMCell unrolled by a Python loop"),
    hand("hand_lstmcell_loop_train", "recurrent_cells", training=True, optimizer="sgd",
         seconds=60, about="LSTMCell encoder and decoder unrolled by Python loops"),
    hand("hand_unet_train_cl_bf16", "unet_block", dtype=BF16, training=True, channels_last=True,
         optimizer="adamw", seconds=130, about="group norm, SiLU, upsample, skip concat"),
    hand("hand_attention_dynamic_fp16", "attention_block", dtype=FP16, dynamic=True,
         shapes=((2, 64, 256), (2, 100, 256), (2, 128, 256)), seconds=90,
         about="SDPA and rotary with a symbolic sequence length"),
    hand("hand_attention_max_autotune_fp16", "attention_block", dtype=FP16, mode=MA, seconds=180),
    hand("hand_attention_ro_bf16", "attention_block", dtype=BF16, mode=RO, seconds=80),
    hand("hand_conv_bn_max_autotune_no_cudagraphs", "conv_bn", mode=MA_NO_CG, seconds=180),
    hand("hand_cond_branch", "cond_block", seconds=60,
         about="torch.cond on a tensor predicate: both branches compiled as subgraphs"),
    hand("hand_user_triton_bf16", "user_triton_block", dtype=BF16, seconds=60,
         about="a user's Triton kernel inside the compiled region"),
    hand("hand_custom_op_fp16", "custom_op_block", dtype=FP16, seconds=60,
         about="a torch.library custom op between fused pointwise work"),
    hand("hand_flex_attention_train_bf16", "flex_attention_block", dtype=BF16, training=True,
         optimizer="adamw", seconds=150, about="flex attention's forward and backward templates"),
    hand("hand_data_dependent_breaks", "data_dependent", repeats=3, seconds=60,
         about=".item() branch, .tolist(), nonzero; resume functions recompiled"),
    hand("hand_recompiles_tensor", "recompiles:tensor", seconds=80,
         about="batch size, dtype, requires_grad, stride, rank, memory format, size 1"),
    hand("hand_recompiles_global_state", "recompiles:global_state", seconds=50,
         about="grad mode, autocast, deterministic algorithms"),
    hand("hand_recompiles_python", "recompiles:python", seconds=90,
         about="int and str constants, list length, id match, None, dict keys, type, closure, "
               "global"),
    hand("hand_recompiles_module", "recompiles:module", seconds=50,
         about="module attribute, training flag, forward hook"),
]

BY_NAME = {c.name: c for c in CAPTURES}
assert len(BY_NAME) == len(CAPTURES), "capture names must be unique"
