nsys profile --trace=nvtx,osrt --sample=none --force-overwrite true -c range -o bad ./prog
exit 1
files: 
