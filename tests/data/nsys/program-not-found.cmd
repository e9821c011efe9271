nsys profile --trace=nvtx,osrt --sample=none --force-overwrite true -o program-not-found ./does-not-exist
exit 1
files: 
