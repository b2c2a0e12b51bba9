#!/bin/bash
# bench/gpu_checks.sh [SECONDS]: the checks one device call makes, within SECONDS (default 560).
#   1. The tensor-core attention against the f32 kernel (test_gpu "[cuda][attention]").
#   2. bench/probes/reduction_split_vote.py: Inductor's inner/outer vote on a layer norm over a cat
#      (results in split_vote.txt).
#   3. Beside each other: the numerics survey of the whole corpus (bench/gpu_survey.sh, four
#      modes, forward and backward, 6 logs at a time, the heaviest first) and the corpus captures
#      listed in corpus_table.py that the corpus does not hold yet (run_capture.py).
# Expects an install carried to the GPU host in .devbin-gpu/ (bin/fxscope-cli and bin/test_gpu,
# each possibly .xz-compressed; lib/fxscope; libexec/fxscope). Results under $OUT:
# test_attention.txt, runs.tgz (the survey's runs, read by bench/corpus_side_by_side.py
# --engine-runs), cap/ (run_capture.py's bundles, for sample_graphs/corpus/store_captures.py).
T=${1:-560}
cd "$(dirname "$0")/.." || exit 1
for f in .devbin-gpu/bin/*.xz; do [ -f "$f" ] && xz -df "$f"; done
chmod +x .devbin-gpu/bin/*
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$OUT/gpu.txt"
python3 -c "import torch, transformers, torchvision; print(torch.__version__, transformers.__version__, torchvision.__version__)" > "$OUT/versions.txt" 2>&1
timeout 60 .devbin-gpu/bin/test_gpu "[cuda][attention]" > "$OUT/test_attention.txt" 2>&1
echo "attention test rc=$?"; tail -20 "$OUT/test_attention.txt"
# How Inductor votes a layer norm over a cat inner or outer (reduction_split_vote.py).
timeout 120 python3 bench/probes/reduction_split_vote.py > "$OUT/split_vote.txt" 2>&1
echo "split vote rc=$?"; grep -E "^==|num_splits|vote" "$OUT/split_vote.txt" | head -40
# Captures the corpus does not hold yet, but for two that cannot be captured
# (sample_graphs/README.md says why): they would hold a worker to the deadline.
missing=$(python3 - <<'PY'
import os, sys
sys.path.insert(0, "sample_graphs/corpus")
from corpus_table import CAPTURES
skip = {"hand_lstm_loop_train", "hand_data_dependent_breaks"}
print(",".join(c.name for c in CAPTURES if c.name not in skip and
               not os.path.isdir(os.path.join("sample_graphs/corpus", c.name))))
PY
)
mkdir -p "$OUT/cap"
if [ -n "$missing" ]; then
  (PYTHONUNBUFFERED=1 TORCHINDUCTOR_COMPILE_THREADS=1 python3 sample_graphs/corpus/run_capture.py \
     --out "$OUT/cap" --only "$missing" --workers 11 --deadline $((T - 30)) --timeout $((T - 50)) \
     > "$OUT/cap/driver.txt" 2>&1) &
fi
# The heaviest logs first, so that the budget cuts the lightest.
heavy="tv_fcn_resnet50_train_bf16 tv_vit_b_16_train_bf16 tv_swin_t_train_bf16
tv_efficientnet_v2_s_train_fp16 tv_resnet50_train tv_resnet50_train_cl_bf16 tv_regnet_y_400mf_train
hf_albert_train tv_efficientnet_b0_train_bf16 tv_resnet18_train_bf16 tv_regnet_y_400mf_train_ro_fp16
tv_ssdlite320_detection tv_densenet121 tv_mobilenet_v3_large_dynamic_bf16 hf_t5_train_bf16 tv_swin_t
tv_maxvit_small hand_unet_train_cl_bf16 hf_llama_train_bf16_weights tv_fcn_resnet50"
logs=()
for n in $heavy; do [ -d "sample_graphs/corpus/$n" ] && logs+=("sample_graphs/corpus/$n"); done
for d in sample_graphs/corpus/*/; do
  n=$(basename "$d"); [[ " $(echo $heavy) " == *" $n "* ]] || logs+=("${d%/}")
done
rm -rf /tmp/runs
BUDGET=$((T - 50)) bash bench/gpu_survey.sh eager,default,reduce-overhead,max-autotune 6 330 "${logs[@]}" \
  > "$OUT/survey.txt" 2>&1
tr '\n' ' ' < "$OUT/survey.txt"; echo; echo "survey: $(grep -c 'rc=0' "$OUT/survey.txt") logs ran to the end"
wait
tail -15 "$OUT/cap/driver.txt" 2>/dev/null
