"""Rewrites a rendered tensor-core kernel (gemm/mma.cu.j2,
conv2d/implicit_gemm_mma.cu.j2) into C++ that runs on emu.hpp.

The rewrite is textual and knows the constructs these templates render
today: the PTX helpers of _common/mma.j2 and _common/dialect.j2 (replaced by
emu.hpp's models, each only when its asm statement is exactly the one the
model implements), one dynamic shared-memory array and pointers derived from
it (emu::SharedPtr), pointer kernel arguments and pointers derived from them
(emu::GlobalPtr), cp.async.commit_group / wait_group, __syncthreads, and
split-K's workspace (__threadfence, __ldcg, atomicAdd on floats), a table
of unsigned long long cast into the shared array; several
kernels (a split-K config's counter-zeroing stage beside the main one).
Anything else (another asm statement, a helper whose PTX changed, a pointer
it cannot trace to shared or global memory, static shared memory, a CUDA
builtin emu.hpp lacks) raises RewriteError naming it, so that a template
change the emulator does not model fails the tests instead of passing them
unchecked. It does not check what emu.hpp checks at run time, nor register
pressure, performance or the hardware's accumulation order.
"""

import re


class RewriteError(Exception):
    """The rendered kernel has a construct the emulator does not model."""

    def __init__(self, what):
        super().__init__(
            "tensor-core emulator: %s. The rewrite (tests/tensor_core_emulator/"
            "cuda_to_cpp.py) and the device model (emu.hpp) know the constructs the "
            "templates rendered when they were written; teach them the new one." % what
        )


# The one asm statement (whitespace collapsed, adjacent string literals
# joined) of each helper emu.hpp defines in its place, by signature; the
# upper-case placeholders are what the emulator reads from it.
_PTX_MODELS = {
    "beast_smem_addr(const void*)": (
        r'asm("{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }"'
        r' : "=r"(a) : "l"(p));'
    ),
    "beast_cp_async(unsigned,const void*,int)": (
        r'asm volatile("cp.async.CACHE.shared.global [%0], [%1], BYTES, %2;\n"'
        r' :: "r"(dst), "l"(src), "r"(src_bytes));'
    ),
    "beast_ldmatrix_x4(unsigned[4],unsigned)": (
        r'asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 { %0, %1, %2, %3}, [%4];\n"'
        r' : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));'
    ),
    "beast_ldmatrix_x4_trans(unsigned[4],unsigned)": (
        r'asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 { %0, %1, %2, %3}, [%4];\n"'
        r' : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));'
    ),
    "beast_tf32(unsigned)": r'asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(t) : "r"(x));',
    "beast_mma(float[4],const unsigned[4],unsigned,unsigned)": (
        r'asm volatile( "mma.sync.aligned.MMA.row.col.f32.TYPE.TYPE.f32'
        r' { %0, %1, %2, %3}, { %4, %5, %6, %7}, { %8, %9}, { %0, %1, %2, %3};\n"'
        r' : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])'
        r' : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));'
    ),
    "beast_st_pair(unsigned short*,unsigned short,unsigned short)": (
        r'asm volatile("st.global.b32 [%0], %1;\n"'
        r' :: "l"(p), "r"((unsigned)lo | ((unsigned)hi << 16)) : "memory");'
    ),
    "beast_st_pair(float*,float,float)": (
        r'asm volatile("st.global.v2.f32 [%0], { %1, %2};\n"'
        r' :: "l"(p), "f"(lo), "f"(hi) : "memory");'
    ),
    "beast_f16_to_float(unsigned short)": r'asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));',
    "beast_float_to_f16(float)": r'asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));',
}


def _model_regex(text):
    """The model's text as a regular expression, its placeholders groups."""
    pattern = re.escape(text)
    pattern = pattern.replace("BYTES", r"(?P<bytes>4|8|16)")
    pattern = pattern.replace("CACHE", r"(?P<cache>ca|cg)")
    pattern = pattern.replace("MMA", r"(?P<shape>m16n8k16|m16n8k8)")
    pattern = pattern.replace("TYPE", r"(?P<type>f16|bf16|tf32)", 1)
    return re.compile(pattern.replace("TYPE", r"(?P=type)"))


_MODELS = {signature: _model_regex(text) for signature, text in _PTX_MODELS.items()}

# CUDA names a kernel may use: emu.hpp defines each (and atomicAdd, whose
# name the check for __ names does not see).
_KNOWN_CUDA = {"__syncthreads", "__float_as_uint", "__uint_as_float", "__threadfence", "__ldcg"}
# Declaration keywords emu.hpp defines away.
_KEYWORDS = {
    "__device__",
    "__forceinline__",
    "__global__",
    "__launch_bounds__",
    "__restrict__",
    "__align__",
}
_ELEMENT = r"(?:float|unsigned short)"


def _skip(text, i):
    """The index after the string literal, character literal or comment at
    text[i], or i when there is none."""
    if text.startswith("//", i):
        end = text.find("\n", i)
        return len(text) if end < 0 else end
    if text.startswith("/*", i):
        return text.index("*/", i) + 2
    if text[i] in "\"'":
        j = i + 1
        while text[j] != text[i]:
            j += 2 if text[j] == "\\" else 1
        return j + 1
    return i


def _find_outside_literals(text, chars, start, depth_chars="({[", close_chars=")}]"):
    """The index of the first of `chars` at nesting depth 0 from start,
    outside literals and comments."""
    depth, i = 0, start
    while i < len(text):
        j = _skip(text, i)
        if j != i:
            i = j
            continue
        c = text[i]
        if depth == 0 and c in chars:
            return i
        if c in depth_chars:
            depth += 1
        elif c in close_chars:
            depth -= 1
        i += 1
    return -1


def _matching_brace(text, open_at):
    """The index of the brace closing the one at open_at."""
    end = _find_outside_literals(text, "}", open_at + 1)
    if end < 0:
        raise RewriteError("unbalanced braces after %r" % text[open_at : open_at + 60])
    return end


def _strip_comments(text):
    """text without its comments (which may say asm, or name a pointer)."""
    pieces, i, start = [], 0, 0
    while i < len(text):
        j = _skip(text, i)
        if j != i:
            if text.startswith(("//", "/*"), i):
                pieces.append(text[start:i] + " ")
                start = j
            i = j
        else:
            i += 1
    return "".join(pieces) + text[start:]


def _normalize_asm(statement):
    joined = re.sub(r'"\s+"', "", statement)  # adjacent literals, as the compiler joins them
    return " ".join(joined.split())


def _asm_statements(text):
    """Every asm statement of text (from `asm` to its semicolon)."""
    statements, i = [], 0
    while True:
        m = re.compile(r"\basm\b").search(text, i)
        if not m:
            return statements
        end = _find_outside_literals(text, ";", m.start())
        statements.append((m.start(), end + 1, text[m.start() : end + 1]))
        i = end + 1


def _signature(name, params):
    """beast_mma(float[4],const unsigned[4],unsigned,unsigned) from the
    declared parameters."""
    types = []
    for p in filter(None, (p.strip() for p in params.split(","))):
        m = re.fullmatch(r"(.*?)\s*\b\w+\s*((?:\[\d+\])*)", p)
        if not m:
            raise RewriteError("cannot read the parameter %r of %s" % (p, name))
        types.append(
            " ".join(m.group(1).replace("*", " * ").split()).replace(" *", "*") + m.group(2)
        )
    return "%s(%s)" % (name, ",".join(types))


def _rewrite_prelude(prelude, found):
    """The helpers before the kernel, less those emu.hpp models (their PTX
    checked and recorded in `found`)."""
    kept, i = [], 0
    header = re.compile(r"__device__\s+(?:__forceinline__\s+)?[\w\s\*]*?\b(\w+)\s*\(([^)]*)\)\s*\{")
    for m in header.finditer(prelude):
        if m.start() < i:
            continue
        end = _matching_brace(prelude, m.end() - 1) + 1
        signature = _signature(m.group(1), m.group(2))
        body = prelude[m.start() : end]
        statements = [_normalize_asm(s) for _, _, s in _asm_statements(body)]
        kept.append(prelude[i : m.start()])
        i = end
        if not statements:
            if signature in _MODELS:
                raise RewriteError(
                    "the template's %s no longer uses the PTX emu.hpp models; its body is now: %s"
                    % (signature, " ".join(body.split()))
                )
            kept.append(body)  # plain C++: compiled as the template wrote it
            continue
        model = _MODELS.get(signature)
        if model is None:
            raise RewriteError(
                "the template defines a helper with PTX that emu.hpp does not model: %s %s"
                % (signature, statements)
            )
        matched = model.fullmatch(statements[0]) if len(statements) == 1 else None
        if not matched:
            raise RewriteError(
                "the PTX of %s changed: the template has\n  %s\nand emu.hpp models\n  %s"
                % (signature, "\n  ".join(statements), _PTX_MODELS[signature])
            )
        found[signature] = matched.groupdict()
    rest = "".join(kept) + prelude[i:]
    if re.search(r"\basm\b", rest):
        raise RewriteError("asm outside a device function before the kernel")
    unknown = sorted(set(re.findall(r"\b__\w+", rest)) - _KNOWN_CUDA - _KEYWORDS)
    if unknown:
        raise RewriteError(
            "CUDA names emu.hpp does not define, before the kernel: %s" % ", ".join(unknown)
        )
    return rest


_COMMIT = 'asm volatile("cp.async.commit_group;\\n" ::);'
_WAIT = re.compile(r'asm volatile\("cp\.async\.wait_group (\d+);\\n" ::\);')


def _rewrite_body(body, params):
    """The kernel's body with shared and global pointers made emu's checked
    ones and its asm statements emu calls."""
    declarations = [line.strip() for line in body.splitlines() if "__shared__" in line]
    dynamic = r"extern __shared__ (?:__align__\(\d+\) )?(%s) (\w+)\[\];" % _ELEMENT
    if len(declarations) > 1 or not all(re.fullmatch(dynamic, d) for d in declarations):
        raise RewriteError(
            "shared memory declared as %s; the emulator models one extern __shared__ array "
            "of float or unsigned short (no static __shared__ memory)" % declarations
        )
    shared = re.findall(dynamic, body)
    body = re.sub(dynamic, r"emu::SharedPtr<\1> \2{0};", body)

    pieces, i = [], 0
    for start, end, statement in _asm_statements(body):
        pieces.append(body[i:start])
        normalized = _normalize_asm(statement)
        wait = _WAIT.fullmatch(normalized)
        if normalized == _COMMIT:
            pieces.append("emu::Commit();")
        elif wait:
            pieces.append("emu::Wait(%s);" % wait.group(1))
        else:
            raise RewriteError(
                "an asm statement in the kernel that emu.hpp does not model: %s" % normalized
            )
        i = end
    body = "".join(pieces) + body[i:]

    shared_names = {shared[0][1]} if shared else set()
    global_names = {name for name, _, _ in params}

    def pointer(m):
        const, element, name = m.group(1) or "", m.group(2), m.group(3)
        paren, root = m.group(4), m.group(5)
        if root in shared_names and root not in global_names:
            kind, names = "emu::SharedPtr<%s>" % element, shared_names
        elif root in global_names and root not in shared_names:
            kind, names = "emu::GlobalPtr<%s%s>" % (const, element), global_names
        else:
            raise RewriteError(
                "cannot tell whether the pointer %s (from %s) is to shared or global memory"
                % (name, root)
            )
        names.add(name)
        if name in shared_names and name in global_names:
            raise RewriteError(
                "the name %s points to shared memory in one place, global in another" % name
            )
        return "%s %s = %s%s" % (kind, name, paren, root)

    body = re.sub(
        r"(?<![\w.])(const )?(%s)\s*\*\s*(?:const\s+)?(?:__restrict__\s+)?(\w+)\s*=\s*(\(?\s*)(\w+)"
        % _ELEMENT,
        pointer,
        body,
    )

    # A table of wider elements inside the shared array (conv2d's NCHW
    # reduction table): `unsigned long long* const t = (unsigned long
    # long*)(Root + offset);`, Root one of the shared pointers above; emu
    # checks the cast's alignment.
    def shared_cast(m):
        element, name, root = m.group(1), m.group(2), m.group(3)
        if root not in shared_names:
            raise RewriteError(
                "the cast pointer %s (from %s) is not into shared memory" % (name, root)
            )
        if name in global_names:
            raise RewriteError(
                "the name %s points to shared memory in one place, global in another" % name
            )
        shared_names.add(name)
        return "emu::SharedPtr<%s> %s = emu::SharedCast<%s>(%s" % (element, name, element, root)

    body = re.sub(
        r"(?<![\w.])(unsigned long long)\s*\*\s*(?:const\s+)?(\w+)\s*=\s*\(\1\s*\*\)\s*\(\s*(\w+)",
        shared_cast,
        body,
    )
    raw = re.search(
        r"\b(?:float|double|short|unsigned|long|int|char|void|u?int\d*_t|size_t|"
        r"(?:u?int|float|double|half|short|char)\d|__half|__nv_bfloat16)\s*\*",
        body,
    )
    if raw:
        line = body[body.rfind("\n", 0, raw.start()) + 1 : body.find("\n", raw.end())]
        raise RewriteError("a raw pointer the rewrite could not trace: %s" % line.strip())
    unknown = sorted(set(re.findall(r"\b__\w+", body)) - _KNOWN_CUDA)
    if unknown:
        raise RewriteError("CUDA names emu.hpp does not define: %s" % ", ".join(unknown))
    return body


def rewrite(source):
    """(C++ for emu.hpp, facts): the rendered source's helpers less the PTX
    ones, and its kernels with emu's pointers; facts: kernels {name:
    {launch_bound, params [(name, element type, const)]}} in source order,
    copy_bytes, copy_cache, mma_shape, mma_type (None where the source has no
    such helper)."""
    source = _strip_comments(source)
    declaration = re.compile(
        r'extern "C" __global__ void __launch_bounds__\((\d+)(?:,\s*\d+)?\)\s*(\w+)\(([^)]*)\)\s*\{'
    )
    kernels, at = [], 0
    while True:
        k = declaration.search(source, at)
        if not k:
            break
        close = _matching_brace(source, k.end() - 1)
        kernels.append((k, close))
        at = close + 1
    if source.count("__global__") != len(kernels) or not kernels:
        at = source.index("__global__") if "__global__" in source else 0
        raise RewriteError(
            'a kernel is not declared as extern "C" __global__ void __launch_bounds__(N[, M]) '
            "name(pointers) {, but as: %s" % " ".join(source[max(at - 20, 0) : at + 200].split())
        )
    for (_, close), (nxt, _) in zip(kernels, kernels[1:] + [(None, None)]):
        between = source[close + 1 : nxt.start() if nxt else len(source)].strip()
        if between:
            raise RewriteError("text after a kernel: %r" % between[:200])

    found = {}
    prelude = _rewrite_prelude(source[: kernels[0][0].start()], found)
    code, facts_kernels = [prelude], {}
    for k, close in kernels:
        params = []
        for p in k.group(3).split(","):
            m = re.fullmatch(r"\s*(const )?(%s)\* __restrict__ (\w+)\s*" % _ELEMENT, p)
            if not m:
                raise RewriteError("a kernel parameter the emulator cannot pass: %r" % p.strip())
            params.append((m.group(3), m.group(2), bool(m.group(1))))
        body = _rewrite_body(source[k.end() : close], params)
        signature = ", ".join(
            "emu::GlobalPtr<%s%s> %s" % ("const " if const else "", element, name)
            for name, element, const in params
        )
        code.append("\nvoid %s(%s) {%s}\n" % (k.group(2), signature, body))
        facts_kernels[k.group(2)] = dict(launch_bound=int(k.group(1)), params=params)
    copy = found.get("beast_cp_async(unsigned,const void*,int)", {})
    mma = found.get("beast_mma(float[4],const unsigned[4],unsigned,unsigned)", {})
    facts = dict(
        kernels=facts_kernels,
        copy_bytes=int(copy["bytes"]) if copy else None,
        copy_cache=copy.get("cache"),
        mma_shape=mma.get("shape"),
        mma_type=mma.get("type"),
    )
    return "".join(code), facts
