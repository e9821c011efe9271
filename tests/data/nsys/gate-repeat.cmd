nsys profile --trace=nvtx,osrt --sample=none --force-overwrite true -c nvtx -p decode_step@LLM --capture-range-end=repeat:2 -e NSYS_NVTX_PROFILER_REGISTER_ONLY=0 -o gate-repeat ./prog
exit 0
files: gate-repeat.1.nsys-rep gate-repeat.2.nsys-rep 
