#!/bin/bash
# bench/gpu_checks_rest.sh: one device call after bench/gpu_checks.sh: the corpus logs its survey
# did not reach (the 14 in `done` ran to the end or past their limit there), the newest captures
# first, in four modes with the runtime's default (tensor-core) attention; then the engine against
# torch.compile on LLaMA and T5 training. Expects the install in .devbin-gpu/ as gpu_checks.sh
# does. Results under $OUT: survey.txt, runs.tgz (for corpus_side_by_side.py --engine-runs),
# sbs.md / sbs.json / sbs.txt, inductor_src.tgz and torch_version.txt. SURVEY_S and SBS_S (370, 150)
# bound the survey and the side-by-side in seconds.
cd "$(dirname "$0")/.." || exit 1
for f in .devbin-gpu/bin/*.xz; do [ -f "$f" ] && xz -df "$f"; done
chmod +x .devbin-gpu/bin/*
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$OUT/gpu.txt"
# Inductor's own sources of the PyTorch there, the authority the fusion rules follow (the public
# index holds older ones): inductor_src.tgz.
python3 -c 'import torch; print(torch.__version__)' > "$OUT/torch_version.txt" 2>&1
tar czf "$OUT/inductor_src.tgz" -C "$(python3 -c 'import torch, os; print(os.path.dirname(torch.__file__))')" \
  _inductor/scheduler.py _inductor/codegen/simd.py _inductor/codegen/simd_kernel_features.py \
  _inductor/codegen/triton.py _inductor/graph.py _inductor/ir.py _inductor/lowering.py \
  _inductor/config.py _inductor/choices.py _inductor/dependencies.py _inductor/tiling_utils.py \
  _inductor/memory.py _inductor/fx_passes/post_grad.py _inductor/kernel/conv.py \
  _inductor/kernel/mm.py 2>&1 | tail -2
done="tv_resnet50_train tv_resnet50_train_cl_bf16 tv_vit_b_16_train_bf16 tv_swin_t_train_bf16 tv_fcn_resnet50_train_bf16 tv_efficientnet_v2_s_train_fp16 hf_albert_train tv_regnet_y_400mf_train tv_ssdlite320_detection tv_densenet121 tv_resnet18_train_bf16 hf_t5_train_bf16 tv_mobilenet_v3_large_dynamic_bf16 tv_swin_t"
first="tv_convnext_tiny_train_bf16 tv_mobilenet_v2_train_cl_fp16 hf_bart_train_fp16
hf_mixtral_train_bf16 hf_mistral_train_bf16 hf_deberta_v2_train_bf16 hf_clip_train_fp16
hf_gemma_train_ro_bf16 hf_distilbert_train_dynamic tv_resnet50_dynamic_cl_bf16
tv_efficientnet_b0_max_autotune_no_cudagraphs_fp16 tv_vgg11_bn_cl_bf16_weights tv_squeezenet1_1
hf_llama_train_bf16 tv_fcn_resnet50 tv_maxvit_small hand_unet_train_cl_bf16
hf_llama_train_bf16_weights tv_efficientnet_b0_train_bf16 tv_regnet_y_400mf_train_ro_fp16"
logs=()
for n in $first; do [ -d "sample_graphs/corpus/$n" ] && logs+=("sample_graphs/corpus/$n"); done
for d in sample_graphs/corpus/*/; do
  n=$(basename "$d")
  [[ " $(echo $done $first) " == *" $n "* ]] || logs+=("${d%/}")
done
rm -rf /tmp/runs
BUDGET=${SURVEY_S:-370} bash bench/gpu_survey.sh eager,default,reduce-overhead,max-autotune 6 300 "${logs[@]}" \
  > "$OUT/survey.txt" 2>&1
tr '\n' ' ' < "$OUT/survey.txt"; echo
timeout ${SBS_S:-150} python3 bench/corpus_side_by_side.py --cli .devbin-gpu/bin/fxscope-cli \
  --only hf_llama_train_bf16,hf_t5_train_bf16 --modes default --budget-s 120 \
  --markdown "$OUT/sbs.md" --json "$OUT/sbs.json" > "$OUT/sbs.txt" 2>&1
tail -12 "$OUT/sbs.txt"
