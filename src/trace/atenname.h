/* atenname.h: the operator a PyTorch operator range stands for.
 *
 * PyTorch's NVTX operator ranges (torch.autograd.profiler.emit_nvtx, and
 * the startup module's ops mode, docs/pytorch.md) name each call, as
 * torch/csrc/profiler/util.cpp's getNvtxStr() spells it in torch 2.x:
 *
 *   NAME[, seq = N][, op_id = N][, sizes = SHAPES][, input_op_ids = IDS]
 *
 * ("aten::mm, seq = 12, op_id = 40", "aten::empty, op_id = 41",
 * "aten::mm, seq = 3, op_id = 7, sizes = [[1, 2048], [2048, 2048]],
 * input_op_ids = [(5,0),(6,0)]"; torch 1.x had no op_id). seq, op_id and
 * input_op_ids differ on every call, so a table grouped by the message has
 * one row per call: the operator is NAME, and NAME plus its sizes when the
 * run recorded shapes (pipeline.trace.pytorch_shapes=true asks for one row
 * per operator and input shapes). */
#ifndef LLMPROF_TRACE_ATENNAME_H
#define LLMPROF_TRACE_ATENNAME_H

#include "core/strbuf.h"

/* When msg is of the form above with at least one of its fields, puts
 * the operator into key (reset first): "NAME", or "NAME, sizes = SHAPES"
 * when the message has sizes, and returns 1. Else returns 0 and leaves key
 * as it was: a message of any other form is its own operator. */
int aten_op_key(const char *msg, struct strbuf *key);

#endif
