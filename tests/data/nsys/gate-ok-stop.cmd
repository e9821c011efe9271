nsys profile --trace=nvtx,osrt --sample=none --force-overwrite true -c nvtx -p decode_all@LLM --capture-range-end=stop -e NSYS_NVTX_PROFILER_REGISTER_ONLY=0 -o gate-ok-stop ./prog
exit 0
files: gate-ok-stop.nsys-rep 
