nsys profile --trace=nvtx,osrt --sample=none --force-overwrite true -c nvtx -p prefill@LLM -o gate-unregistered ./prog
exit 0
files: 
