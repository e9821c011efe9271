nsys profile --trace=nvtx,osrt --sample=none --force-overwrite true -c cudaProfilerApi -o cuda-profiler-api ./prog
exit 0
files: 
