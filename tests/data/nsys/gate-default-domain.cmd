nsys profile --trace=nvtx,osrt --sample=none --force-overwrite true -c nvtx -p decode_all -e NSYS_NVTX_PROFILER_REGISTER_ONLY=0 -o gate-default-domain ./prog
exit 0
files: 
