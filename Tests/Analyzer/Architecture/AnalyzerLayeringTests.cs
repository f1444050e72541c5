using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Tests.Support;
using Xunit;
using Xunit.Abstractions;

namespace EtwSerializerProfiler.Tests.Analyzer.Architecture;

/// <summary>
/// The analyzer's folders are layers (docs/architecture.md): each namespace may use those below it, never one that uses
/// it back. Read from the compiled code, so a fully qualified name or a lambda cannot hide an edge, and from the source,
/// so a constant (compiled to its value) or a using directive nothing needs cannot either.
/// </summary>
public sealed class AnalyzerLayeringTests(ITestOutputHelper output)
{
    private const string Root = "EtwSerializerProfiler.Analyzer";

    [Fact]
    public void NoNamespaceCycles()
    {
        var graph = new NamespaceGraph(typeof(TraceAnalysis).Assembly, Root);
        graph.AddSourceReferences(Path.Combine(Repo.Root, "Analyzer"));
        foreach (var (from, to) in graph.Edges.OrderBy(e => e.Key))
            output.WriteLine($"{from} -> {string.Join(", ", to.Keys.Order())}");
        var cycles = graph.Cycles();
        Assert.True(cycles.Count == 0, "namespace cycles:\n" + string.Join("\n", cycles.Select(c => string.Join(" <-> ", c) + "\n  " + string.Join("\n  ", graph.Explain(c)))));
    }
}

/// <summary>
/// The analyzer's public types are what its one outside user, the esp tool (Cli/), names, and the types those expose
/// in their own public members; everything else is internal (the tests and the stack-tag micro-benchmark see it
/// through InternalsVisibleTo). A new public type nobody outside uses fails here: make it internal.
/// </summary>
public sealed class AnalyzerPublicSurfaceTests(ITestOutputHelper output)
{
    [Fact]
    public void PublicTypesAreThoseTheToolUses()
    {
        var analyzer = typeof(TraceAnalysis).Assembly;
        var cli = System.Reflection.Assembly.Load("esp");
        var needed = new HashSet<Type>();
        var queue = new Queue<Type>(cli.GetTypes().SelectMany(t => NamespaceGraph.UsedTypes(t)).Where(t => t.Assembly == analyzer));
        // A const (an option's name) is compiled into esp as its value: the type that declares it is used too.
        var literals = cli.GetTypes().SelectMany(NamespaceGraph.Literals).ToHashSet(StringComparer.Ordinal);
        foreach (var t in analyzer.GetExportedTypes())
            if (t.GetFields().Any(f => f.IsLiteral && f.GetRawConstantValue() is string v && literals.Contains(v))) queue.Enqueue(t);
        const System.Reflection.BindingFlags visible = System.Reflection.BindingFlags.Public | System.Reflection.BindingFlags.Instance | System.Reflection.BindingFlags.Static | System.Reflection.BindingFlags.DeclaredOnly;
        while (queue.TryDequeue(out var t))
        {
            // A generic type is used as one of its instantiations (SampleLedger<RunAnalysis>): its definition and its arguments are what is needed.
            if (t.IsConstructedGenericType)
            {
                foreach (var argument in t.GetGenericArguments().Where(a => a.Assembly == analyzer)) queue.Enqueue(argument);
                queue.Enqueue(t.GetGenericTypeDefinition());
                continue;
            }
            var outer = t;
            while (outer.DeclaringType is { } d) outer = d;
            if (!needed.Add(outer)) continue;
            foreach (var u in NamespaceGraph.UsedTypes(outer, bodies: false, visible).Where(u => u.Assembly == analyzer)) queue.Enqueue(u);
            foreach (var nested in outer.GetNestedTypes().SelectMany(n => NamespaceGraph.UsedTypes(n, bodies: false, visible)).Where(u => u.Assembly == analyzer)) queue.Enqueue(nested);
        }
        var publicTypes = analyzer.GetExportedTypes().Where(t => t.DeclaringType is null).ToList();
        output.WriteLine($"{publicTypes.Count} public types, {needed.Count} needed by esp");
        var unneeded = publicTypes.Where(t => !needed.Contains(t)).Select(t => t.FullName).Order().ToList();
        Assert.True(unneeded.Count == 0, "public but not used by esp (make them internal):\n" + string.Join("\n", unneeded));
    }
}

/// <summary>
/// The analysis model is immutable: the stages fill drafts (AnalysisDraft, RunDraft, ThreadDraft, ActivityTally),
/// internal to the analyzer, and freeze them once every stage is done, so reports, findings and diff all read one
/// set of figures that nothing can change afterwards. A setter other than init (of any visibility), a property of a
/// mutable collection type or a method that returns nothing (a mutator) on a public model type fails here.
/// </summary>
public sealed class AnalyzerModelImmutableTests
{
    [Fact]
    public void ModelTypesHaveNoSettersButInitNorMutableCollectionsNorMutators()
    {
        const System.Reflection.BindingFlags all = System.Reflection.BindingFlags.Public | System.Reflection.BindingFlags.NonPublic | System.Reflection.BindingFlags.Instance;
        var model = typeof(TraceAnalysis).Assembly.GetTypes()
            .Where(t => t.IsPublic && t.Namespace == typeof(TraceAnalysis).Namespace && !t.IsEnum).ToList();
        Assert.Contains(typeof(RunAnalysis), model);
        var offenders = new List<string>();
        foreach (var type in model)
        {
            foreach (var p in type.GetProperties(all))
            {
                var setter = p.SetMethod;
                var initOnly = setter?.ReturnParameter.GetRequiredCustomModifiers().Any(m => m.Name == "IsExternalInit") == true;
                if (setter is not null && !initOnly) offenders.Add($"{type.Name}.{p.Name} has a setter");
                var pt = p.PropertyType;
                if (p.GetMethod is { IsPublic: true } && pt.IsGenericType && pt.GetGenericTypeDefinition() is var d && (d == typeof(List<>) || d == typeof(Dictionary<,>) || d == typeof(HashSet<>)))
                    offenders.Add($"{type.Name}.{p.Name} is a mutable {d.Name}");
            }
            foreach (var m in type.GetMethods(all | System.Reflection.BindingFlags.DeclaredOnly))
                if (!m.IsSpecialName && m.ReturnType == typeof(void) && m.Name != "Deconstruct") offenders.Add($"{type.Name}.{m.Name} is a method that returns nothing (a mutator?)");
        }
        Assert.True(offenders.Count == 0, string.Join("\n", offenders));
    }
}
