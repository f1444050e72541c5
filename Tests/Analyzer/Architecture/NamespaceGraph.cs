using System.Reflection;
using System.Reflection.Emit;

namespace EtwSerializerProfiler.Tests.Analyzer.Architecture;

/// <summary>
/// Which of an assembly's namespaces use which, read from the compiled code itself: signatures, fields, base types and
/// every token in every method body (what a source scan of using directives would miss: fully qualified names,
/// lambdas, extension methods). Namespaces are folded to <see cref="Depth"/> segments below the root, so a folder's
/// sub-folder (Findings.Detectors) counts as the folder.
/// </summary>
internal sealed class NamespaceGraph
{
    private const BindingFlags All = BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.Instance | BindingFlags.Static | BindingFlags.DeclaredOnly;
    private static readonly Dictionary<short, OpCode> OpCodesByValue = typeof(OpCodes).GetFields(BindingFlags.Public | BindingFlags.Static)
        .Select(f => (OpCode)f.GetValue(null)!).ToDictionary(o => o.Value);

    private readonly Assembly _assembly;
    private readonly string _root;
    public int Depth { get; }
    /// <summary>Namespace -> namespace it uses -> one type that makes the edge (to say why in a failure).</summary>
    public Dictionary<string, Dictionary<string, string>> Edges { get; } = new(StringComparer.Ordinal);

    public NamespaceGraph(Assembly assembly, string root, int depth = 1)
    {
        _assembly = assembly;
        _root = root;
        Depth = depth;
        foreach (var type in assembly.GetTypes()) AddType(type);
    }

    /// <summary>
    /// Adds what the compiled code cannot show: a constant is compiled to its value, so the type that declares it
    /// leaves no token behind, and a using directive nothing needs leaves none either. Reads every source file under
    /// <paramref name="sourceDir"/>: its using directives of the root's namespaces, and each dotted name in its code
    /// (comments left out) that names one of the assembly's types from a namespace below the root
    /// (<c>Kernel.KernelChunks.RecordsPerChunk</c>).
    /// </summary>
    public void AddSourceReferences(string sourceDir)
    {
        var types = _assembly.GetTypes().Where(t => t.DeclaringType is null && t.FullName is not null)
            .ToDictionary(t => t.FullName!, StringComparer.Ordinal);
        var usingRegex = new System.Text.RegularExpressions.Regex(@"^\s*(?:global\s+)?using\s+(?:static\s+)?(?:\w+\s*=\s*)?([\w.]+)\s*;");
        var nameRegex = new System.Text.RegularExpressions.Regex(@"(?<![\w.])(?:global::)?([A-Z]\w*(?:\.[A-Z]\w*)+)");
        // A message may read like a dotted name: string literals are blanked (escaped quotes inside them kept whole).
        var stringRegex = new System.Text.RegularExpressions.Regex(@"@""(?:[^""]|"""")*""|""(?:[^""\\]|\\.)*""");
        foreach (var file in Directory.EnumerateFiles(sourceDir, "*.cs", SearchOption.AllDirectories))
        {
            if (file.Contains($"{Path.DirectorySeparatorChar}obj{Path.DirectorySeparatorChar}") || file.Contains($"{Path.DirectorySeparatorChar}bin{Path.DirectorySeparatorChar}")) continue;
            var lines = File.ReadAllLines(file);
            var ns = lines.Select(l => System.Text.RegularExpressions.Regex.Match(l, @"^namespace\s+([\w.]+)")).FirstOrDefault(m => m.Success)?.Groups[1].Value;
            if (ns is null || FoldNamespace(ns) is not { } from) continue;
            var fileName = Path.GetFileName(file);
            foreach (var line in lines)
            {
                // String literals out first (a "//" inside one is not a comment), then the comment.
                var code = stringRegex.Replace(line.TrimStart(), "\"\"");
                var comment = code.IndexOf("//", StringComparison.Ordinal);
                if (comment >= 0) code = code[..comment];
                if (usingRegex.Match(code) is { Success: true } u)
                {
                    if (FoldNamespace(u.Groups[1].Value) is { } used) AddEdge(from, used, $"using {u.Groups[1].Value} in {fileName}");
                    continue;
                }
                foreach (System.Text.RegularExpressions.Match m in nameRegex.Matches(code))
                {
                    var name = m.Groups[1].Value;
                    // Relative to the root (Kernel.KernelChunks) or written in full (EtwSerializerProfiler.Analyzer.Kernel.KernelChunks).
                    var parts = (name.StartsWith(_root + ".", StringComparison.Ordinal) ? name[(_root.Length + 1)..] : name).Split('.');
                    for (var k = parts.Length; k >= 2; k--)
                        if (types.TryGetValue(_root + "." + string.Join('.', parts.Take(k)), out var type) && Fold(type) is { } to)
                        {
                            AddEdge(from, to, $"{name} in {fileName}");
                            break;
                        }
                }
            }
        }
    }

    private void AddEdge(string from, string to, string why)
    {
        if (from == to) return;
        if (!Edges.TryGetValue(from, out var targets)) Edges[from] = targets = new(StringComparer.Ordinal);
        targets.TryAdd(to, why);
    }

    private string? FoldNamespace(string ns)
    {
        if (!ns.Equals(_root, StringComparison.Ordinal) && !ns.StartsWith(_root + ".", StringComparison.Ordinal)) return null;
        var rest = ns.Length == _root.Length ? [] : ns[(_root.Length + 1)..].Split('.');
        return string.Join('.', rest.Take(Depth)) is { Length: > 0 } folded ? folded : "(root)";
    }

    /// <summary>Every cycle's namespaces, each cycle once (strongly connected components of more than one namespace).</summary>
    public IReadOnlyList<IReadOnlyList<string>> Cycles()
    {
        var index = 0;
        var indices = new Dictionary<string, int>();
        var low = new Dictionary<string, int>();
        var stack = new Stack<string>();
        var onStack = new HashSet<string>();
        var result = new List<IReadOnlyList<string>>();
        void Visit(string v)
        {
            indices[v] = low[v] = index++;
            stack.Push(v);
            onStack.Add(v);
            foreach (var w in Edges.GetValueOrDefault(v)?.Keys ?? Enumerable.Empty<string>())
            {
                if (!indices.ContainsKey(w)) { Visit(w); low[v] = Math.Min(low[v], low[w]); }
                else if (onStack.Contains(w)) low[v] = Math.Min(low[v], indices[w]);
            }
            if (low[v] != indices[v]) return;
            var component = new List<string>();
            string x;
            do { x = stack.Pop(); onStack.Remove(x); component.Add(x); } while (x != v);
            if (component.Count > 1) result.Add([.. component.Order(StringComparer.Ordinal)]);
        }
        foreach (var v in Edges.Keys.Concat(Edges.Values.SelectMany(e => e.Keys)).Distinct().ToList())
            if (!indices.ContainsKey(v)) Visit(v);
        return result;
    }

    /// <summary>The edges inside a cycle, each with the type that makes it: what a failure message prints.</summary>
    public IEnumerable<string> Explain(IReadOnlyList<string> cycle) =>
        from source in cycle
        from edge in Edges.GetValueOrDefault(source) ?? []
        where cycle.Contains(edge.Key)
        select $"{source} -> {edge.Key} (uses {edge.Value})";

    private string? Fold(Type? type)
    {
        while (type is { HasElementType: true }) type = type.GetElementType();
        if (type is null || type.Assembly != _assembly || type.IsGenericParameter) return null;
        while (type.DeclaringType is { } outer) type = outer;
        return FoldNamespace(type.Namespace ?? "");
    }

    private void AddType(Type type)
    {
        if (Fold(type) is not { } from) return;
        foreach (var t in UsedTypes(type))
            if (Fold(t) is { } to) AddEdge(from, to, t.FullName ?? t.Name);
    }

    /// <summary>Every type a type's compiled code names: base, interfaces, members' signatures, method bodies (generic arguments unfolded).</summary>
    public static IEnumerable<Type> UsedTypes(Type type, bool bodies = true, BindingFlags members = All)
    {
        var found = new List<Type>();
        void Use(Type? t)
        {
            if (t is null) return;
            while (t.HasElementType) t = t.GetElementType()!;
            if (t.IsGenericType && !t.IsGenericTypeDefinition) foreach (var a in t.GetGenericArguments()) Use(a);
            found.Add(t);
        }
        Use(type.BaseType);
        foreach (var i in type.GetInterfaces()) Use(i);
        foreach (var f in type.GetFields(members)) Use(f.FieldType);
        foreach (var p in type.GetProperties(members)) Use(p.PropertyType);
        foreach (var m in type.GetMethods(members).Cast<MethodBase>().Concat(type.GetConstructors(members)))
        {
            if (m is MethodInfo mi) Use(mi.ReturnType);
            foreach (var p in m.GetParameters()) Use(p.ParameterType);
            if (bodies) foreach (var used in BodyTypes(m)) Use(used);
        }
        return found;
    }

    /// <summary>Types named by the tokens in a method's IL (calls, fields, casts, allocations, ldtoken).</summary>
    private static IEnumerable<Type> BodyTypes(MethodBase method)
    {
        var il = method.GetMethodBody()?.GetILAsByteArray();
        if (il is null) yield break;
        var module = method.Module;
        var typeArgs = method.DeclaringType?.IsGenericType == true ? method.DeclaringType.GetGenericArguments() : null;
        var methodArgs = method.IsGenericMethod ? method.GetGenericArguments() : null;
        foreach (var m in method.GetMethodBody()!.LocalVariables) yield return m.LocalType;
        for (var i = 0; i < il.Length;)
        {
            var code = il[i] == 0xFE ? OpCodesByValue[(short)(0xFE00 | il[i + 1])] : OpCodesByValue[il[i]];
            i += code.Size;
            var operand = OperandSize(code, il, i);
            if (code.OperandType is OperandType.InlineMethod or OperandType.InlineField or OperandType.InlineType or OperandType.InlineTok)
            {
                var token = BitConverter.ToInt32(il, i);
                MemberInfo? member = null;
                try { member = module.ResolveMember(token, typeArgs, methodArgs); }
                catch (ArgumentException) { } // a token into another module's generic context: not ours
                if (member is Type t) yield return t;
                else if (member?.DeclaringType is { } d) yield return d;
                if (member is FieldInfo f) yield return f.FieldType;
            }
            i += operand;
        }
    }

    /// <summary>The string literals in a type's methods: how a const of another assembly shows in compiled code.</summary>
    public static IEnumerable<string> Literals(Type type)
    {
        foreach (var m in type.GetMethods(All).Cast<MethodBase>().Concat(type.GetConstructors(All)))
        {
            var il = m.GetMethodBody()?.GetILAsByteArray();
            if (il is null) continue;
            for (var i = 0; i < il.Length;)
            {
                var code = il[i] == 0xFE ? OpCodesByValue[(short)(0xFE00 | il[i + 1])] : OpCodesByValue[il[i]];
                i += code.Size;
                if (code == OpCodes.Ldstr) yield return m.Module.ResolveString(BitConverter.ToInt32(il, i));
                i += OperandSize(code, il, i);
            }
        }
    }

    private static int OperandSize(OpCode code, byte[] il, int at) => code.OperandType switch
    {
        OperandType.InlineNone => 0,
        OperandType.ShortInlineBrTarget or OperandType.ShortInlineI or OperandType.ShortInlineVar => 1,
        OperandType.InlineVar => 2,
        OperandType.InlineI8 or OperandType.InlineR => 8,
        OperandType.InlineSwitch => 4 + 4 * BitConverter.ToInt32(il, at),
        _ => 4,
    };
}
