nsys profile --trace=nvtx,osrt --sample=none --force-overwrite true -o nodir/output-dir-missing ./prog
exit 0
files: 
