nsys profile --trace=nvtx,osrt --sample=none --force-overwrite true -o double-dash -- ./prog
exit 1
files: 
