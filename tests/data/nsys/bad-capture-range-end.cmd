nsys profile --trace=nvtx,osrt --sample=none --force-overwrite true -c nvtx -p x --capture-range-end=bogus -o bad ./prog
exit 1
files: 
