using System.Reflection;
using System.Runtime.InteropServices;
using EtwSerializerProfiler.Benchmark;
using EtwSerializerProfiler.Benchmark.Runs;
using EtwSerializerProfiler.Benchmark.Serializers;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.RunMarkers;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.Benchmark;

/// <summary>
/// The benchmark's .NET Framework 4.7.2 build, as built by this solution (and copied next to the tool), read with
/// MetadataLoadContext: nothing runs .NET Framework on Linux, but its metadata shows what it would do. It must offer
/// the same serializers, the same run events, the same results schema, the same options and the same marker thread as
/// the net10.0 build the tests run, or a .NET vs .NET Framework diff would compare different things.
/// </summary>
public sealed class NetFrameworkBuildTests : IDisposable
{
    private static readonly string Net472 = Path.Combine(Repo.BinDir, "net472");
    private readonly MetadataLoadContext _context;
    private readonly Assembly _benchmark;
    private readonly Assembly _common;
    private readonly Assembly _runMarkers;

    public NetFrameworkBuildTests()
    {
        // The build's own files first, then the running runtime's facades (mscorlib, System, System.Core ... forward
        // to System.Private.CoreLib), which is enough to resolve the .NET Framework types the metadata names.
        var paths = Directory.GetFiles(Net472, "*.dll").Append(Path.Combine(Net472, "SerializerBenchmark.exe"))
            .Concat(Directory.GetFiles(RuntimeEnvironment.GetRuntimeDirectory(), "*.dll"));
        _context = new MetadataLoadContext(new PathAssemblyResolver(paths));
        _benchmark = _context.LoadFromAssemblyPath(Path.Combine(Net472, "SerializerBenchmark.exe"));
        _common = _context.LoadFromAssemblyPath(Path.Combine(Net472, "EtwSerializerProfiler.Common.dll"));
        _runMarkers = _context.LoadFromAssemblyPath(Path.Combine(Net472, "EtwSerializerProfiler.RunMarkers.dll"));
    }

    [Fact]
    public void It_is_a_dotnet_framework_472_build()
    {
        Assert.Equal(".NETFramework,Version=v4.7.2", TargetFramework(_benchmark));
        Assert.Equal(".NETFramework,Version=v4.7.2", TargetFramework(_common));
        Assert.Equal(".NETCoreApp,Version=v10.0", TargetFramework(typeof(Serializer).Assembly));
        // The run markers library's netstandard2.0 build: the one a .NET Framework app of a user's gets, too.
        Assert.Equal(".NETStandard,Version=v2.0", TargetFramework(_runMarkers));
        Assert.Contains(_benchmark.GetReferencedAssemblies(), a => a.Name == _runMarkers.GetName().Name);
        Assert.Equal("SerializerBenchmark", _benchmark.GetName().Name); // the stack tags match SerializerBenchmark.*
    }

    [Fact]
    public void It_has_every_serializer_of_the_net10_build_BinaryFormatter_included()
    {
        var net472 = ConcreteSerializers(_benchmark.GetType(typeof(Serializer).FullName!, throwOnError: true)!, _benchmark);
        var net10 = ConcreteSerializers(typeof(Serializer), typeof(Serializer).Assembly);
        Assert.Equal(net10, net472);
        Assert.Contains(typeof(BinaryFormatterSerializer).FullName, net472);
        Assert.Equal(SerializerCatalog.All.Count, net472.Count);
    }

    [Fact]
    public void Its_run_events_are_the_net10_builds_event_for_event()
    {
        var net472 = Events(_runMarkers.GetType(typeof(RunEventSource).FullName!, throwOnError: true)!);
        var net10 = Events(typeof(RunEventSource));
        Assert.Equal(net10, net472);
        Assert.Contains($"EventSource Name={RunEvents.ProviderName}", net472);
        Assert.Equal(6, net472.Count); // the source's name and RunStart, RunStop, RunBegin, RunEnd, RunThread
    }

    [Fact]
    public void Its_results_json_has_the_net10_schema()
    {
        var net472 = Schema(_common.GetType(typeof(BenchmarkResults).FullName!, throwOnError: true)!);
        var net10 = Schema(typeof(BenchmarkResults));
        Assert.Equal(net10, net472);
        Assert.Contains("RunResult.GcPauseMs: Double required", net472);
        // Written by a System.Text.Json source-generated context on both (the package's generator on net472).
        Assert.NotNull(_common.GetType("EtwSerializerProfiler.Common.ResultsJsonContext"));
    }

    [Fact]
    public void Its_options_marker_thread_and_exit_handshake_are_the_net10_builds()
    {
        var usage = _benchmark.GetType(typeof(BenchmarkOptions).FullName!, throwOnError: true)!.GetField(nameof(BenchmarkOptions.Usage))!.GetRawConstantValue();
        Assert.Equal(BenchmarkOptions.Usage, usage);
        Assert.Contains("--" + ExitHandshake.Option, (string)usage!, StringComparison.Ordinal);
        Assert.NotNull(_benchmark.GetType(typeof(RecorderExitGate).FullName!));

        // The analyzer finds runs by these NoInlining frames of the marker thread.
        var marker = _runMarkers.GetType(typeof(MarkerThread).FullName!, throwOnError: true)!;
        foreach (var method in RunEvents.MarkerMethodByOperation.Values)
        {
            var m = marker.GetMethod(method, BindingFlags.NonPublic | BindingFlags.Instance)!;
            Assert.True(m.MethodImplementationFlags.HasFlag(MethodImplAttributes.NoInlining), method);
        }
    }

    private static string? TargetFramework(Assembly assembly) =>
        assembly.GetCustomAttributesData().SingleOrDefault(a => a.AttributeType.Name == "TargetFrameworkAttribute")?.ConstructorArguments[0].Value as string;

    /// <summary>What SerializerCatalog instantiates: concrete subclasses with a parameterless constructor.</summary>
    private static List<string> ConcreteSerializers(Type serializer, Assembly assembly) =>
        assembly.GetTypes()
            .Where(t => t.IsSubclassOf(serializer) && !t.IsAbstract && t.GetConstructor(Type.EmptyTypes) is not null)
            .Select(t => t.FullName!).Order(StringComparer.Ordinal).ToList();

    /// <summary>The EventSource's name and every [Event] method: id, level, opcode, name, parameter names and types.</summary>
    private static List<string> Events(Type source)
    {
        var lines = source.GetCustomAttributesData().Where(a => a.AttributeType.Name == "EventSourceAttribute")
            .SelectMany(a => a.NamedArguments).Select(n => $"EventSource {n.MemberName}={n.TypedValue.Value}").ToList();
        foreach (var method in source.GetMethods(BindingFlags.Public | BindingFlags.Instance | BindingFlags.DeclaredOnly).OrderBy(m => m.Name, StringComparer.Ordinal))
        {
            var attribute = method.GetCustomAttributesData().SingleOrDefault(a => a.AttributeType.Name == "EventAttribute");
            if (attribute is null) continue;
            var named = string.Join(" ", attribute.NamedArguments.OrderBy(n => n.MemberName, StringComparer.Ordinal).Select(n => $"{n.MemberName}={n.TypedValue.Value}"));
            var parameters = string.Join(", ", method.GetParameters().Select(p => $"{p.ParameterType.FullName} {p.Name}"));
            lines.Add($"{method.Name} id={attribute.ConstructorArguments[0].Value} {named} ({parameters})");
        }
        return lines;
    }

    /// <summary>Every property reachable from the results root: declaring type, name, type, and whether it is required.</summary>
    private static List<string> Schema(Type root)
    {
        var lines = new List<string>();
        var seen = new HashSet<string>(StringComparer.Ordinal);
        var pending = new Queue<Type>([root]);
        while (pending.Count > 0)
        {
            var type = pending.Dequeue();
            if (!seen.Add(type.FullName!)) continue;
            foreach (var p in type.GetProperties(BindingFlags.Public | BindingFlags.Instance).OrderBy(p => p.Name, StringComparer.Ordinal))
            {
                var required = p.GetCustomAttributesData().Any(a => a.AttributeType.Name == "RequiredMemberAttribute");
                var ignored = p.GetCustomAttributesData().Any(a => a.AttributeType.Name == "JsonIgnoreAttribute");
                lines.Add($"{type.Name}.{p.Name}: {Name(p.PropertyType)}{(required ? " required" : "")}{(ignored ? " ignored" : "")}");
                foreach (var t in Ours(p.PropertyType)) pending.Enqueue(t);
            }
        }
        return lines;

        static IEnumerable<Type> Ours(Type t) =>
            (t.IsGenericType ? t.GetGenericArguments().SelectMany(Ours) : [])
                .Concat(t.Namespace == typeof(BenchmarkResults).Namespace && !t.IsEnum ? [t] : []);

        static string Name(Type t) => t.IsGenericType
            ? $"{t.Name[..t.Name.IndexOf('`', StringComparison.Ordinal)]}<{string.Join(", ", t.GetGenericArguments().Select(Name))}>"
            : t.Name;
    }

    public void Dispose() => _context.Dispose();
}
