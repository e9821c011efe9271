nsys profile --trace=cuda,nvtx,osrt --sample=none --capture-range=nvtx --capture-range-end=stop --nvtx-capture=decode_all --env-var=NSYS_NVTX_PROFILER_REGISTER_ONLY=0 --cuda-graph-trace=node -o /TMP/cases/gated-default-domain/run --force-overwrite true ./probe
exit 0
files: 
