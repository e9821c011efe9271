/* kname.h: the one reading of a kernel's name.
 *
 * Kernel names reach llmprof spelled by several tools: nsys and ncu
 * demangle with NVIDIA's demangler ("void at::native::<unnamed>::k<(int)4,
 * (bool)1>(T1 *, const T2 &)", lambdas as "[lambda(int) (instance 1)]"),
 * the builtin tracer with the C++ runtime's ("void at::native::(anonymous
 * namespace)::k<4, true>(float*, int const&)", "{lambda(int)#1}",
 * "2ul", "[clone .constprop.0]"), and some names are no C++ declaration at
 * all: cuBLAS's "nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT", Triton's
 * "triton_poi_fused_mul_silu_0", a mangled "_Z6kernelPf", ncu's "range" or
 * its NVTX-renamed "A::A1/scale(float *)". Every part of llmprof that takes
 * a kernel name apart does it here:
 *
 *   kname_parse()    where the scope, base name, template arguments and
 *                    parameter list lie in a name;
 *   kname_base()     the function's own name, as nsys's shortName and ncu's
 *                    "function" name base give it ("k");
 *   kname_display()  a short name for a reader (reports, findings, charts);
 *   kname_targs()    the template arguments, one by one;
 *   kname_key()      a key equal for one kernel whichever tool spelled it,
 *                    and different for two instantiations of one template.
 *
 * None of them fails: a name they cannot read is its own base name. They
 * borrow the name, read at most its first strlen() bytes, and append to
 * the caller's strbuf. */
#ifndef LLMPROF_TRACE_KNAME_H
#define LLMPROF_TRACE_KNAME_H

#include <stddef.h>

#include "core/strbuf.h"

/* The parts of a name: slices into it, empty (len 0, p where the part
 * would begin) when the name has none. For "void at::native::<unnamed>::
 * k<(int)4, float>(int, T2) const":
 *   scope  = "at::native::<unnamed>::"  (namespaces and classes, with "::")
 *   base   = "k"
 *   targs  = "<(int)4, float>"           (with its brackets)
 *   params = "(int, T2)"                 (with its parentheses)
 * What comes before the scope (a return type) and after the parameter list
 * (qualifiers, "[clone ...]") is in no part. A name without a C++ base name
 * ("range", a mangled name) is all base. */
struct kname {
	struct str scope, base, targs, params;
};

void kname_parse(struct kname *k, const char *name, size_t len);

/* The function's own name: "void ns::k<int>(float *)" -> "k". */
void kname_base(struct strbuf *out, const char *name);

/* How kname_display() shortens a name. */
enum kname_display_flags {
	/* keep the namespaces and classes: "at::native::k"; an anonymous
	 * namespace, spelled three ways by three demanglers, is left out */
	KNAME_SCOPE = 1 << 0,
	/* a generic launcher template ("cutlass::Kernel2<cutlass_80_tensorop_
	 * ..._align8>", "device_kernel<G>") is named by its first template
	 * argument, the kernel it launches */
	KNAME_UNWRAP = 1 << 1,
	/* a name without a parameter list is already short ("gemv<128, 4>", a
	 * report model's short name): shown as is, template arguments and all */
	KNAME_KEEP_SHORT = 1 << 2,
};

/* The base name (with KNAME_SCOPE, the qualified name) of name without its
 * template arguments or parameters, shaped by flags (enum
 * kname_display_flags), then cut to at most max characters with "..."
 * (SIZE_MAX: no limit). An empty or NULL name reads "(unnamed)". */
void kname_display(struct strbuf *out, const char *name, unsigned flags, size_t max);

/* The template arguments of the function (k.targs): up to max of them into
 * args[], each without the spaces around it; returns how many there are
 * (0 when none), which may exceed max. "k<(int)4, ns::T<a, b>>" -> 2:
 * "(int)4", "ns::T<a, b>". */
size_t kname_targs(const char *name, struct str *args, size_t max);

/* The match key: the base name and its template arguments, normalised so
 * that every tool's spelling of one instantiation gives one key: casts
 * ("(int)4"), integer suffixes ("2ul"), true/false as 1/0, `const`,
 * spaces, anonymous namespaces and plain namespace qualifiers dropped
 * ("at::native::<unnamed>::OpaqueType<2>" -> "OpaqueType<2>"); the
 * parameter list, which the tools spell with or without T1, T2, is not
 * part of it. "void k_gemv<__nv_bfloat16, float, (int)1, (bool)0>(...)"
 * -> "k_gemv<__nv_bfloat16,float,1,0>". */
void kname_key(struct strbuf *out, const char *name);

/* One template argument (or any piece of a name) normalised as kname_key()
 * normalises the template list: for comparing instantiations argument by
 * argument. */
void kname_key_arg(struct strbuf *out, struct str arg);

/* What a kernel Inductor (torch.compile) generated does, read from its
 * name (kname_inductor.c): "triton_poi_fused_mul_silu_split_4" ->
 * "pointwise: mul, silu, split"; "triton_red_fused__to_copy_add_mean_3" ->
 * "reduction: _to_copy, add, mean". Returns 1 and appends the label when
 * name is one (its kind known), else 0 and appends nothing. The name
 * carries the ATen ops whose nodes the kernel fused (Inductor's default
 * kernel naming), not their order of execution. */
int kname_inductor(struct strbuf *out, const char *name);

#endif
