using System.Collections.Concurrent;

namespace EtwSerializerProfiler.Analyzer.StackTags;

/// <summary>
/// Assigns each stack exactly one tag of a <see cref="StackTagFile"/>, the way WPA does: of all frames that match an
/// entrypoint, the one with the highest priority wins, and among equal priorities the deepest (closest to the leaf);
/// with one rule WPA cannot express, for the Reflection and Activator tags: a sample is reflection only when the frame
/// that owns it is a reflection frame (the owner rule, <c>StackTagMatcher.Owner.cs</c>, docs/analyzer.md#attribution).
/// Traces hold millions of stacks over a few thousand distinct frames, so each distinct (module, method) pair is
/// matched against the patterns once and the result cached; classifying a stack is then one lookup per frame.
/// Safe to share between threads.
/// </summary>
internal sealed partial class StackTagMatcher
{
    public const string Other = "Other";
    /// <summary>The tag of GC work and GC pauses, whatever the tags file calls its own GC tags.</summary>
    public const string Gc = "GC";

    private readonly CompiledRule[] _rules;

    /// <summary>Per tag of <see cref="StackTagFile.TagPaths"/>: whether it is a Reflection or Activator tag.</summary>
    private readonly bool[] _reflectionTag;

    /// <summary>False only for <see cref="s_surface"/> itself, which answers which family a frame is in and needs no owner.</summary>
    private readonly bool _ownerRule;

    public StackTagMatcher(StackTagFile file) : this(file, ownerRule: true) { }

    private StackTagMatcher(StackTagFile file, bool ownerRule)
    {
        File = file;
        _rules = Compile(file);
        _matched = new bool[file.Rules.Count];
        _tagPaths = file.TagPaths;
        _reflectionTag = [.. file.TagPaths.Select(ReflectionSurface.IsReflectionTag)];
        _ownerRule = ownerRule;
    }

    /// <summary>Per rule of <see cref="StackTagFile.Rules"/>: whether it matched any frame seen so far. Only ever set.</summary>
    private readonly bool[] _matched;

    private readonly IReadOnlyList<string> _tagPaths;

    private readonly ConcurrentDictionary<(string Module, string Method), FrameMatch> _cache = new();

    /// <summary><see cref="_cache"/> again, per thread and keyed by the name instances (<see cref="FrameCache"/>).</summary>
    private readonly ThreadLocal<FrameCache> _byInstance = new(() => new FrameCache());

    private readonly ConcurrentDictionary<string, ModuleRules> _moduleRules = new(StringComparer.Ordinal);

    private long _frameResolutions;

    public StackTagFile File { get; }

    /// <summary>Distinct frames seen so far.</summary>
    public int CachedFrameCount => _cache.Count;

    /// <summary>How often a frame was matched against the patterns, i.e. cache misses.</summary>
    public long FrameResolutionCount => Interlocked.Read(ref _frameResolutions);

    /// <summary>
    /// The entrypoints that matched none of the frames resolved so far, in file order: how a tags file written for
    /// other modules (or module names spelled differently) shows up. Free while matching: a rule is marked when it
    /// takes a frame. Rules skipped because they could not beat a frame's match are tried here, once per call, on
    /// the frames that had a match only (every rule was tried on the frames that had none).
    /// </summary>
    public IReadOnlyList<StackTagRule> UnmatchedRules()
    {
        foreach (var ((module, method), match) in _cache)
        {
            if (match.TagIndex < 0) continue;
            FrameNames? names = null;
            for (var i = 0; i < _rules.Length; i++)
            {
                // A rule above the frame's final priority was tried and failed; only those at or below were skipped.
                if (Volatile.Read(ref _matched[i]) || _rules[i].Priority > match.Priority) continue;
                names ??= FrameNames.Create(ModuleRulesOf(module).Names, method);
                if (_rules[i].Matches(names)) Volatile.Write(ref _matched[i], true);
            }
        }
        return [.. File.Rules.Where((_, i) => !Volatile.Read(ref _matched[i]))];
    }

    /// <returns>The winning tag path, or <see cref="Other"/> when no frame matches.</returns>
    public string Classify(IReadOnlyList<StackFrame> framesLeafFirst)
    {
        ArgumentNullException.ThrowIfNull(framesLeafFirst);
        var n = framesLeafFirst.Count;
        // Stacks are classified once per distinct stack (callers cache), so a short-lived array for deep ones is fine.
        Span<FrameMatch> matches = n <= 256 ? stackalloc FrameMatch[n] : new FrameMatch[n];
        var cache = _byInstance.Value!;
        for (var i = 0; i < n; i++)
        {
            var frame = framesLeafFirst[i];
            matches[i] = Lookup(cache, frame.Module ?? "", frame.Method ?? "");
        }
        var best = Winner(matches);
        return best < 0 ? Other : _tagPaths[best];
    }

    /// <summary>
    /// Whose time a sample is, as a verdict names it: the innermost code frame (yours, a library's, a generated
    /// method; not the core library, reflection or the runtime's native code) is the caller; the outermost frame
    /// below it that is the core library or reflection is the API it called; the next code frame above the caller
    /// of another type and another name is its outer caller (a library's helper, or a wrapper of the same name, is
    /// rarely the answer: the method that used it is).
    /// A sample in the code's own body has no API. Indices into the frames, leaf first; -1 when there is none.
    /// </summary>
    public (int Api, int Caller, int Outer) Site(IReadOnlyList<StackFrame> framesLeafFirst)
    {
        ArgumentNullException.ThrowIfNull(framesLeafFirst);
        var cache = _byInstance.Value!;
        var api = -1;
        var caller = -1;
        for (var i = 0; i < framesLeafFirst.Count; i++)
        {
            var frame = framesLeafFirst[i];
            var kind = Lookup(cache, frame.Module ?? "", frame.Method ?? "").Kind;
            if (caller < 0)
            {
                if (kind == FrameKind.Code) caller = i;
                else if (kind is FrameKind.Surface or FrameKind.CoreLib) api = i;
            }
            else if (kind == FrameKind.Code && !TypeOf(frame.Method).SequenceEqual(TypeOf(framesLeafFirst[caller].Method))
                && !NameOf(frame.Method).SequenceEqual(NameOf(framesLeafFirst[caller].Method)))
            {
                // Not a wrapper of the caller (another type's method of the same name delegating to it): who used it.
                return (api, caller, i);
            }
        }
        return (api, caller, -1);
    }

    // Spans of the method's name, not strings: Site compares them for every frame rootward of the caller, and making
    // strings of them was a quarter of the kernel session's charge.

    /// <summary>"Method" of "Namespace.Type.Method(...)".</summary>
    private static ReadOnlySpan<char> NameOf(string? method)
    {
        var name = WithoutSignature(method);
        return name[(name.LastIndexOf('.') + 1)..];
    }

    /// <summary>"Namespace.Type" of "Namespace.Type.Method(...)".</summary>
    private static ReadOnlySpan<char> TypeOf(string? method)
    {
        var name = WithoutSignature(method);
        var dot = name.LastIndexOf('.');
        return dot <= 0 ? [] : name[..dot];
    }

    private static ReadOnlySpan<char> WithoutSignature(string? method)
    {
        if (string.IsNullOrEmpty(method)) return [];
        var paren = method.IndexOf('(', StringComparison.Ordinal);
        return paren > 0 ? method.AsSpan(0, paren) : method.AsSpan();
    }

    /// <returns>The tag this single frame would give a stack on its own, or null if no entrypoint matches it.</returns>
    public string? MatchFrame(string module, string method) => MatchFrame(module, method, null);

    /// <param name="names">The frame's names if the caller made them already (the owner rule asks the surface of each new frame).</param>
    private string? MatchFrame(string module, string method, FrameNames? names)
    {
        var match = Lookup(_byInstance.Value!, module ?? "", method ?? "", names);
        return match.TagIndex < 0 ? null : _tagPaths[match.TagIndex];
    }

    private static CompiledRule[] Compile(StackTagFile file)
    {
        ArgumentNullException.ThrowIfNull(file);
        var tagIndex = new Dictionary<string, int>(StringComparer.Ordinal);
        for (var i = 0; i < file.TagPaths.Count; i++) tagIndex[file.TagPaths[i]] = i;
        return [.. file.Rules.Select(r => new CompiledRule(
            tagIndex[r.TagPath], r.Priority, Glob.Compile(r.ModulePattern), Glob.Compile(r.MethodPattern)))];
    }

    private FrameMatch Lookup(FrameCache byInstance, string module, string method, FrameNames? names = null)
    {
        if (byInstance.TryGet(module, method, out var known)) return known;
        var key = (module, method);
        if (!_cache.TryGetValue(key, out var match)) match = _cache.GetOrAdd(key, Resolve(module, method, names));
        byInstance.Add(module, method, match);
        return match;
    }

    private FrameMatch Resolve(string module, string method, FrameNames? given)
    {
        Interlocked.Increment(ref _frameResolutions);
        var moduleRules = ModuleRulesOf(module);
        var names = given ?? FrameNames.Create(moduleRules.Names, method);
        var kind = _ownerRule ? KindOf(module, method, names) : FrameKind.Code;
        var best = FrameMatch.None with { Kind = kind, CallsTarget = kind == FrameKind.Surface && CallsTarget(module, method), Native = kind == FrameKind.Runtime && IsNative(method, names) };
        foreach (var i in moduleRules.Rules)
        {
            var rule = _rules[i];
            // Strictly greater: among rules of equal priority the first in the file wins, which authors can control.
            if (best.TagIndex >= 0 && rule.Priority <= best.Priority) continue;
            if (!rule.MethodMatches(names)) continue;
            Volatile.Write(ref _matched[i], true);
            best = best with { TagIndex = rule.TagIndex, Priority = rule.Priority, ReflectionTag = _reflectionTag[rule.TagIndex] };
        }
        return best;
    }

    /// <param name="Kind">What the frame is to the owner rule.</param>
    /// <param name="ReflectionTag">The frame's tag is a Reflection or Activator tag.</param>
    /// <param name="CallsTarget">The frame is reflection's invoke machinery, whose callee is the invoked method.</param>
    /// <param name="Native">Native code (a native module, a C++ symbol, code without a name): above an owner it only called into managed code.</param>
    private readonly record struct FrameMatch(int TagIndex, int Priority, FrameKind Kind = FrameKind.Code, bool ReflectionTag = false, bool CallsTarget = false, bool Native = false)
    {
        public static readonly FrameMatch None = new(-1, 0);
    }

    private sealed record CompiledRule(int TagIndex, int Priority, Glob Module, Glob Method)
    {
        public bool Matches(FrameNames names) => ModuleMatches(names.ModuleNames) && MethodMatches(names);

        public bool ModuleMatches(ModuleNames module) =>
            Module.Matches(module.Upper) || (module.UpperWithDll is { } dll && Module.Matches(dll));

        public bool MethodMatches(FrameNames names)
        {
            if (Method.Matches(names.ColonMethod)) return true;
            // A pattern that spells out "::" states where the type ends; only patterns without it may mean the dotted form.
            return !Method.HasTypeSeparator && names.DottedMethod is { } dotted && Method.Matches(dotted);
        }
    }

    /// <summary>A module's names in the shapes WPA patterns are written against, upper-cased for case-insensitive matching.</summary>
    private sealed record ModuleNames(string Upper, string? UpperWithDll)
    {
        private static readonly string[] s_binaryExtensions = [".dll", ".exe", ".so", ".dylib", ".sys", ".drv", ".ocx", ".winmd"];

        public static ModuleNames Of(string module)
        {
            var fileName = module[(module.LastIndexOfAny(['/', '\\']) + 1)..];
            // TraceEvent often drops the extension ("SerializerBenchmark", "System.Private.CoreLib"), while WPA
            // patterns are written against file names; a dot alone proves nothing, hence the explicit list.
            var hasExtension = s_binaryExtensions.Any(e => fileName.EndsWith(e, StringComparison.OrdinalIgnoreCase))
                || fileName.Contains(".so.", StringComparison.OrdinalIgnoreCase);
            var withDll = hasExtension || fileName.Length == 0 || fileName == "?" ? null : fileName + ".dll";
            return new ModuleNames(fileName.ToUpperInvariant(), withDll?.ToUpperInvariant());
        }
    }

    /// <summary>
    /// A module's names and the rules whose module pattern takes it, in file order: a trace has a few dozen modules
    /// and thousands of distinct frames, so module patterns are matched once per module, not once per frame.
    /// </summary>
    private sealed record ModuleRules(ModuleNames Names, int[] Rules);

    private ModuleRules ModuleRulesOf(string module) => _moduleRules.GetOrAdd(module, static (m, self) =>
    {
        var names = ModuleNames.Of(m);
        return new ModuleRules(names, [.. Enumerable.Range(0, self._rules.Length).Where(i => self._rules[i].ModuleMatches(names))]);
    }, this);

    /// <summary>A frame's names in the shapes WPA patterns are written against, upper-cased for case-insensitive matching.</summary>
    private sealed record FrameNames(ModuleNames ModuleNames, string ColonMethod, string? DottedMethod)
    {
        public string Module => ModuleNames.Upper;

        /// <remarks>
        /// Spans until the two upper-cased names: one string each (the names are made once per distinct frame, but
        /// the substrings and copies they were made through were a fifth of what triggered the native esp's GCs).
        /// </remarks>
        public static FrameNames Create(ModuleNames module, string method)
        {
            var dotted = method.AsSpan(0, SignatureStart(method));
            var split = ColonSplit(dotted);
            if (split < 0) return new FrameNames(module, Upper(dotted, -1), null);
            return new FrameNames(module, Upper(dotted, split), Upper(dotted, -1));
        }

        /// <summary>The name upper-cased, with the dot at <paramref name="split"/> (if any) written as "::".</summary>
        private static string Upper(ReadOnlySpan<char> name, int split)
        {
            var length = name.Length + (split < 0 ? 0 : 1);
            var rented = length > 256 ? System.Buffers.ArrayPool<char>.Shared.Rent(length) : null;
            var buffer = rented is null ? stackalloc char[length] : rented.AsSpan(0, length);
            if (split < 0) name.ToUpperInvariant(buffer);
            else
            {
                name[..split].ToUpperInvariant(buffer);
                buffer[split] = ':';
                buffer[split + 1] = ':';
                name[(split + 1)..].ToUpperInvariant(buffer[(split + 2)..]);
            }
            var text = new string(buffer);
            if (rented is not null) System.Buffers.ArrayPool<char>.Shared.Return(rented);
            return text;
        }

        /// <summary>Where the signature starts: the first '(' outside brackets, past the first character; else the length.</summary>
        private static int SignatureStart(string method)
        {
            var depth = 0;
            for (var i = 0; i < method.Length; i++)
            {
                switch (method[i])
                {
                    case '[' or '<': depth++; break;
                    case ']' or '>': depth = Math.Max(0, depth - 1); break;
                    // At 0 the name would vanish, e.g. a native "(anonymous namespace)::f"; keep it whole instead.
                    case '(' when depth == 0 && i > 0: return i;
                }
            }
            return method.Length;
        }

        /// <summary>The dot that ends the type ("Type.Method" is "Type::Method" in the colon form), or -1 when the name has none.</summary>
        private static int ColonSplit(ReadOnlySpan<char> method)
        {
            // Native frames ("WKS::gc_heap::mark_phase") already say where the type ends.
            if (method.IndexOf("::", StringComparison.Ordinal) >= 0) return -1;

            // Dots inside generic arguments ("Dictionary`2[System.String,System.Int32]") or compiler-generated
            // names ("<Serialize>b__0") do not separate type from method, so only top-level dots count.
            var depth = 0;
            var lastDot = -1;
            for (var i = 0; i < method.Length; i++)
            {
                switch (method[i])
                {
                    case '[' or '<': depth++; break;
                    case ']' or '>': depth = Math.Max(0, depth - 1); break;
                    case '.' when depth == 0: lastDot = i; break;
                }
            }
            if (lastDot <= 0) return -1;
            // Constructors are named ".ctor"/".cctor": "Type..ctor" splits before the method's own dot.
            if (method[lastDot - 1] == '.') lastDot--;
            return lastDot <= 0 ? -1 : lastDot;
        }
    }

    /// <summary>
    /// A case-insensitive <c>*</c>/<c>?</c> wildcard pattern. Hand-written rather than Regex: patterns are few and
    /// short, results are cached per frame, and this avoids escaping every regex metacharacter WPA names contain.
    /// It answers as <see cref="System.IO.Enumeration.FileSystemName.MatchesSimpleExpression(ReadOnlySpan{char}, ReadOnlySpan{char}, bool)"/>
    /// does (a test compares them on random names), which measured about 3x slower per comparison on a trace's frames
    /// (docs/analyzer.md, "Matching speed") and treats '\' as an escape.
    /// </summary>
    private sealed class Glob
    {
        private readonly string _pattern;
        private readonly bool _matchesEverything;
        /// <summary>The literal text before the first wildcard: most patterns name a namespace or type, and most frames fail on it.</summary>
        private readonly string _prefix;

        private Glob(string pattern)
        {
            _pattern = pattern.ToUpperInvariant();
            _matchesEverything = _pattern.All(c => c == '*');
            var wildcard = _pattern.AsSpan().IndexOfAny('*', '?');
            _prefix = wildcard < 0 ? _pattern : _pattern[..wildcard];
            HasTypeSeparator = pattern.Contains("::", StringComparison.Ordinal);
        }

        public bool HasTypeSeparator { get; }

        public static Glob Compile(string pattern) => new(pattern);

        /// <param name="text">Already upper-cased with <see cref="string.ToUpperInvariant"/>.</param>
        public bool Matches(string text)
        {
            if (_matchesEverything) return true;
            if (!text.StartsWith(_prefix, StringComparison.Ordinal)) return false;
            var p = _pattern;
            int pi = 0, ti = 0, star = -1, resume = 0;
            while (ti < text.Length)
            {
                // The pattern's '*' is tested first: a '*' in the frame name is text, and must not be consumed
                // as a literal match of the wildcard ("*gc_heap*" against "*Runs.gc_heap").
                if (pi < p.Length && p[pi] == '*')
                {
                    star = pi++;
                    resume = ti;
                }
                else if (pi < p.Length && (p[pi] == '?' || p[pi] == text[ti]))
                {
                    pi++;
                    ti++;
                }
                else if (star >= 0)
                {
                    // Backtrack greedily: let the last '*' swallow one more character. Only the last star needs
                    // revisiting, which keeps this O(pattern * text) in the worst case.
                    pi = star + 1;
                    ti = ++resume;
                }
                else
                {
                    return false;
                }
            }
            while (pi < p.Length && p[pi] == '*') pi++;
            return pi == p.Length;
        }
    }
}
