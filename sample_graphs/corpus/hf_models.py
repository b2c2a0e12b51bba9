"""transformers models for the corpus: the real architectures from small configs, random weights.

Every builder returns (model, make_inputs, default_shapes): make_inputs(shape) gives the
positional and keyword arguments of one call, shape being (batch, sequence length). Class
names are looked up at run time, so a transformers without one fails that capture alone.
"""
import torch
import transformers

VOCAB = 2048
SMALL = dict(hidden_size=256, num_hidden_layers=2, num_attention_heads=4, intermediate_size=1024)


def lookup(name):
    cls = getattr(transformers, name, None)
    if cls is None:
        raise RuntimeError(f"transformers {transformers.__version__} has no {name}")
    return cls


def make(config_name, model_name, **config):
    torch.manual_seed(0)
    return lookup(model_name)(lookup(config_name)(**config))


def tokens(dev, batch, seq):
    return torch.randint(3, VOCAB, (batch, seq), device=dev)


def decoder(config_name, model_name, **config):
    """A causal LM; in training the tokens are their own labels (the model shifts them)."""

    def build(dev, training):
        model = make(config_name, model_name, vocab_size=VOCAB, use_cache=False, **config)

        def inputs(shape):
            ids = tokens(dev, *shape)
            kwargs = {"input_ids": ids, "use_cache": False}
            if training:
                kwargs["labels"] = ids
            return (), kwargs

        return model, inputs, [(2, 128)]

    return build


def encoder(config_name, model_name, labels="tokens", **config):
    """An encoder; LABELS says what its training loss takes: tokens (masked LM) or classes."""

    def build(dev, training):
        model = make(config_name, model_name, vocab_size=VOCAB, **config)

        def inputs(shape):
            ids = tokens(dev, *shape)
            kwargs = {"input_ids": ids, "attention_mask": torch.ones_like(ids)}
            if training:
                kwargs["labels"] = ids if labels == "tokens" else torch.zeros(
                    shape[0], dtype=torch.long, device=dev)
            return (), kwargs

        return model, inputs, [(2, 128)]

    return build


def seq2seq(config_name, model_name, **config):
    """An encoder-decoder: source tokens, and target tokens half as long."""

    def build(dev, training):
        model = make(config_name, model_name, vocab_size=VOCAB, use_cache=False, **config)

        def inputs(shape):
            batch, seq = shape
            target = tokens(dev, batch, seq // 2)
            kwargs = {"input_ids": tokens(dev, batch, seq)}
            kwargs["labels" if training else "decoder_input_ids"] = target
            return (), kwargs

        return model, inputs, [(2, 128)]

    return build


def whisper(dev, training):
    model = make("WhisperConfig", "WhisperForConditionalGeneration", vocab_size=VOCAB, d_model=256,
                 encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
                 decoder_attention_heads=4, encoder_ffn_dim=1024, decoder_ffn_dim=1024,
                 num_mel_bins=80, max_source_positions=1500, pad_token_id=0, bos_token_id=1,
                 eos_token_id=2, decoder_start_token_id=1, use_cache=False)

    def inputs(shape):
        batch, seq = shape
        return (), {"input_features": torch.randn(batch, 80, 3000, device=dev),
                    "decoder_input_ids": tokens(dev, batch, seq)}

    return model, inputs, [(1, 16)]


def wav2vec2(dev, training):
    """Wav2Vec2 for CTC: seven 1-D convolutions over raw audio, then the transformer."""
    model = make("Wav2Vec2Config", "Wav2Vec2ForCTC", vocab_size=32, **SMALL)

    def inputs(shape):
        batch, samples = shape
        return (), {"input_values": torch.randn(batch, samples, device=dev)}

    return model, inputs, [(1, 16000)]


def clip(dev, training):
    tower = dict(hidden_size=256, intermediate_size=512, num_hidden_layers=2, num_attention_heads=4)
    model = make("CLIPConfig", "CLIPModel", projection_dim=128,
                 text_config=dict(tower, vocab_size=VOCAB, max_position_embeddings=77),
                 vision_config=dict(tower, image_size=224, patch_size=32))

    def inputs(shape):
        batch, seq = shape
        return (), {"input_ids": tokens(dev, batch, seq),
                    "pixel_values": torch.randn(batch, 3, 224, 224, device=dev)}

    return model, inputs, [(2, 16)]


def mobilevit(dev, training):
    """MobileViT (the small config): MobileNetV2 blocks, feature maps unfolded into patches for
    attention and folded back."""
    model = make("MobileViTConfig", "MobileViTForImageClassification", image_size=256)

    def inputs(shape):
        batch, res = shape
        return (), {"pixel_values": torch.randn(batch, 3, res, res, device=dev)}

    return model, inputs, [(2, 256)]


LLAMA = dict(hidden_size=256, intermediate_size=688, num_hidden_layers=2, num_attention_heads=4,
             num_key_value_heads=2, max_position_embeddings=512)

BUILDERS = {
    "gpt2": decoder("GPT2Config", "GPT2LMHeadModel", n_layer=2, n_embd=256, n_head=4,
                    n_positions=256),
    "gpt2_1layer": decoder("GPT2Config", "GPT2LMHeadModel", n_layer=1, n_embd=256, n_head=4,
                           n_positions=256),
    "llama": decoder("LlamaConfig", "LlamaForCausalLM", **LLAMA),
    "llama_1layer": decoder("LlamaConfig", "LlamaForCausalLM", **dict(LLAMA, num_hidden_layers=1)),
    "mistral": decoder("MistralConfig", "MistralForCausalLM", sliding_window=64, **LLAMA),
    "qwen2": decoder("Qwen2Config", "Qwen2ForCausalLM", **LLAMA),
    "phi": decoder("PhiConfig", "PhiForCausalLM", partial_rotary_factor=0.5, **SMALL),
    "phi3": decoder("Phi3Config", "Phi3ForCausalLM", pad_token_id=0, **LLAMA),
    "gemma_1layer": decoder("GemmaConfig", "GemmaForCausalLM", head_dim=64, pad_token_id=0,
                            **dict(LLAMA, num_hidden_layers=1, num_key_value_heads=1)),
    "mixtral": decoder("MixtralConfig", "MixtralForCausalLM", num_local_experts=4,
                       num_experts_per_tok=2, **dict(LLAMA, intermediate_size=512)),
    "gpt_neox": decoder("GPTNeoXConfig", "GPTNeoXForCausalLM", rotary_pct=0.25, **SMALL),
    "bert_mlm": encoder("BertConfig", "BertForMaskedLM", **SMALL),
    "albert_mlm": encoder("AlbertConfig", "AlbertForMaskedLM", embedding_size=128, **SMALL),
    "bert_1layer": encoder("BertConfig", "BertModel", **dict(SMALL, num_hidden_layers=1)),
    "roberta_cls": encoder("RobertaConfig", "RobertaForSequenceClassification", labels="classes",
                           max_position_embeddings=514, **SMALL),
    "distilbert": encoder("DistilBertConfig", "DistilBertModel", dim=256, n_layers=2, n_heads=4,
                          hidden_dim=1024),
    "deberta_v2": encoder("DebertaV2Config", "DebertaV2Model", relative_attention=True,
                          pos_att_type=["p2c", "c2p"], **SMALL),
    "t5": seq2seq("T5Config", "T5ForConditionalGeneration", d_model=256, d_kv=32, d_ff=1024,
                  num_layers=2, num_heads=4, pad_token_id=0, decoder_start_token_id=0),
    "bart": seq2seq("BartConfig", "BartForConditionalGeneration", d_model=256, encoder_layers=2,
                    decoder_layers=2, encoder_attention_heads=4, decoder_attention_heads=4,
                    encoder_ffn_dim=1024, decoder_ffn_dim=1024),
    "whisper": whisper,
    "wav2vec2": wav2vec2,
    "clip": clip,
    "mobilevit": mobilevit,
}
