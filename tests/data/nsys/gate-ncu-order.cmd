nsys profile --trace=nvtx,osrt --sample=none --force-overwrite true -c nvtx -p LLM@prefill -e NSYS_NVTX_PROFILER_REGISTER_ONLY=0 -o gate-ncu-order ./prog
exit 0
files: 
