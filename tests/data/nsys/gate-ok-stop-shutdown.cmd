nsys profile --trace=nvtx,osrt --sample=none --force-overwrite true -c nvtx -p prefill@LLM -e NSYS_NVTX_PROFILER_REGISTER_ONLY=0 -o gate-ok-stop-shutdown ./prog
exit 143
files: gate-ok-stop-shutdown.nsys-rep 
