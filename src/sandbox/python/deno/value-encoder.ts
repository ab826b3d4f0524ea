/**
 * The Python side of a test's values: a function that turns a value into bounded, typed JSON
 * text, by its data, never by its own methods — `__eq__`, `__repr__`, `__iter__` of the value
 * are not called; a subclass of a built-in type is read through the built-in's C methods
 * (`int.__format__`, `list.__iter__`, `dict.items`), and anything else is an opaque object (its
 * type's name and, at the top, `bool(value)`: the only guest code the encoding runs). The host
 * checks and compares what it says (python/host/tests-judge.ts).
 *
 * Like the driver's task source it is compiled once, before any program ran, and made afresh
 * for each use from its code object (immutable); it looks up no name: the built-ins it uses are
 * a tuple taken at init (`ENCODER_BUILTINS`), handed in as an argument.
 *
 * Encoding (all tokens ASCII; text as UTF-16LE hex): `["N"]` None, `["T"]`/`["F"]`, `["i",hex]`
 * int, `["f",repr]` float, `["s",hex]` str, `["b",hex]` bytes, `["l",...]` list, `["t",...]`
 * tuple, `["S",...]` set, `["Z",...]` frozenset, `["d",k,v,...]` dict, `["o",hexname,0|1]`
 * object, `["c"]` cut (a bound was reached); a cut str/bytes ends with `,"c"`.
 *
 * Runs inside the Deno worker (the source runs in Pyodide).
 */

/** Built-ins the encoder uses, evaluated once at init, in this order. */
export const ENCODER_BUILTINS = [
  "type",
  "issubclass",
  "bool",
  "int",
  "float",
  "str",
  "bytes",
  "bytearray",
  "list",
  "tuple",
  "dict",
  "set",
  "frozenset",
  "int.__format__",
  "int.bit_length",
  "float.__repr__",
  "str.encode",
  "str.__len__",
  "str.__getitem__",
  "bytes.hex",
  "bytes.__len__",
  "bytes.__getitem__",
  "bytearray.hex",
  "bytearray.__len__",
  "list.__iter__",
  "tuple.__iter__",
  "dict.items",
  "set.__iter__",
  "frozenset.__iter__",
  "slice",
  "str.join",
  "Exception",
  "type.__dict__['__name__'].__get__",
].join(", ");

/** Most nested containers encoded; deeper is cut. */
export const MAX_ENCODED_DEPTH = 12;

/**
 * The encoder: `_cs_encode(box, budget)` → JSON text of `box.start` (the value comes in a
 * `slice`, which the evaluation's task returned through the C-level `slice` type); `K`, the
 * built-ins tuple, is a global of the fresh scope it is made in. `budget` counts nodes plus
 * text characters.
 */
export const ENCODER_SOURCE = [
  "def _cs_encode(box, budget):",
  "    value = box.start",
  "    (T, SUB, BOOL, INT, FLOAT, STR, BYTES, BYTEARRAY, LIST, TUPLE, DICT, SET, FROZENSET, IFMT, IBITS, FREPR, SENC, SLEN, SGET, BHEX, BLEN, BGET, BAHEX, BALEN, LITER, TITER, DITEMS, SITER, FITER, SLICE, JOIN, EXC, TNAME) = K",
  "    parts = []",
  "    left = [budget]",
  "    put = parts.append",
  "    def seq(tag, it, depth):",
  "        put('[\"' + tag + '\"')",
  "        for item in it:",
  "            put(',')",
  "            if left[0] <= 0:",
  "                put('[\"c\"]')",
  "                break",
  "            enc(item, depth + 1)",
  "        put(']')",
  "    def enc(x, depth):",
  "        left[0] -= 1",
  "        if depth > " + String(MAX_ENCODED_DEPTH) + " or left[0] < 0:",
  "            put('[\"c\"]')",
  "            return",
  "        if x is None:",
  "            put('[\"N\"]')",
  "            return",
  "        if x is True:",
  "            put('[\"T\"]')",
  "            return",
  "        if x is False:",
  "            put('[\"F\"]')",
  "            return",
  "        t = T(x)",
  "        if SUB(t, INT):",
  "            if IBITS(x) > 4 * left[0]:",
  "                put('[\"c\"]')",
  "                return",
  "            h = IFMT(x, 'x')",
  "            left[0] -= SLEN(h)",
  "            put('[\"i\",\"' + h + '\"]')",
  "            return",
  "        if SUB(t, FLOAT):",
  "            put('[\"f\",\"' + FREPR(x) + '\"]')",
  "            return",
  "        if SUB(t, STR):",
  "            n = SLEN(x)",
  "            cut = n > left[0]",
  "            if cut:",
  "                x = SGET(x, SLICE(0, left[0] if left[0] > 0 else 0))",
  "            left[0] -= n",
  "            put('[\"s\",\"' + BHEX(SENC(x, 'utf-16-le', 'surrogatepass')) + ('\",\"c\"]' if cut else '\"]'))",
  "            return",
  "        if SUB(t, BYTEARRAY):",
  "            n = BALEN(x)",
  "            left[0] -= 2 * n",
  "            put('[\"c\"]' if left[0] < 0 else '[\"b\",\"' + BAHEX(x) + '\"]')",
  "            return",
  "        if SUB(t, BYTES):",
  "            n = BLEN(x)",
  "            cut = n > left[0]",
  "            if cut:",
  "                x = BGET(x, SLICE(0, left[0] if left[0] > 0 else 0))",
  "            left[0] -= 2 * n",
  "            put('[\"b\",\"' + BHEX(x) + ('\",\"c\"]' if cut else '\"]'))",
  "            return",
  "        if SUB(t, LIST):",
  "            seq('l', LITER(x), depth)",
  "            return",
  "        if SUB(t, TUPLE):",
  "            seq('t', TITER(x), depth)",
  "            return",
  "        if SUB(t, SET):",
  "            seq('S', SITER(x), depth)",
  "            return",
  "        if SUB(t, FROZENSET):",
  "            seq('Z', FITER(x), depth)",
  "            return",
  "        if SUB(t, DICT):",
  "            put('[\"d\"')",
  "            for k, v in DITEMS(x):",
  "                put(',')",
  "                if left[0] <= 0:",
  "                    put('[\"c\"]')",
  "                    break",
  "                enc(k, depth + 1)",
  "                put(',')",
  "                enc(v, depth + 1)",
  "            put(']')",
  "            return",
  "        name = '3f00'",
  "        try:",
  "            n = TNAME(t)",
  "            if T(n) is STR and SLEN(n) <= 200:",
  "                name = BHEX(SENC(n, 'utf-16-le', 'surrogatepass'))",
  "        except EXC:",
  "            pass",
  "        truth = '0'",
  "        if depth == 0:",
  "            truth = '1' if BOOL(x) else '0'",
  "        put('[\"o\",\"' + name + '\",' + truth + ']')",
  "    enc(value, 0)",
  "    return JOIN('', parts)",
  "",
].join("\n");
