nsys profile --trace=nvtx,osrt --sample=none --force-overwrite true -o importer-missing ./prog
exit 0
files: importer-missing.qdstrm 
