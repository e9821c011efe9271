nsys profile --trace=nvtx,osrt --sample=none --force-overwrite true -o importer-cannot-start ./prog
exit 0
files: importer-cannot-start.qdstrm 
