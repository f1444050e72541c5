using System.Runtime.CompilerServices;
using System.Runtime.Serialization.Formatters.Binary;

namespace EtwSerializerProfiler.Benchmark.Serializers;

#pragma warning disable SYSLIB0011 // BinaryFormatter is obsolete: measuring it is the point; it is never enabled here.

/// <summary>
/// The classic BinaryFormatter ([Serializable] types, all fields incl. private ones, full object identity incl.
/// strings). .NET 9+ ships a stub that always throws PlatformNotSupportedException, so on this runtime the
/// serializer reports itself unsupported; the answer comes from actually trying once, not from a version check.
/// If the System.Runtime.Serialization.Formatters package is referenced, the real implementation is present but
/// throws NotSupportedException unless the (unsafe) AppContext switch
/// System.Runtime.Serialization.EnableUnsafeBinaryFormatterSerialization is true; this tool never sets it.
/// The capabilities were verified with the switch on in a scratch process: Secret and the shared title survive,
/// no dynamic methods or assemblies. When it can run, the probe has already touched BinaryFormatter once.
/// </summary>
public sealed class BinaryFormatterSerializer : Serializer
{
    private static readonly Lazy<string?> s_unsupportedReason = new(Probe);

    public override string Name => "BinaryFormatter";

    public override string Format => "Binary (NRBF)";

    public override Capabilities Capabilities =>
        Capabilities.PrivateMembers | Capabilities.SharedReferences | Capabilities.Binary | Capabilities.NoRuntimeCodegen;

    protected override Type LibraryType => typeof(BinaryFormatter);

    public override string? UnsupportedReason => s_unsupportedReason.Value;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public override void Serialize(object graph, Stream stream) => new BinaryFormatter().Serialize(stream, graph);

    [MethodImpl(MethodImplOptions.NoInlining)]
    public override object Deserialize(Type type, Stream stream)
    {
        var result = new BinaryFormatter().Deserialize(stream);
        return type.IsInstanceOfType(result)
            ? result
            : throw new InvalidDataException($"BinaryFormatter returned {result.GetType().Name}, expected {type.Name}");
    }

    /// <summary>Serializes a tiny object once: null when that works, otherwise why it does not.</summary>
    private static string? Probe()
    {
        try
        {
            new BinaryFormatter().Serialize(Stream.Null, "probe");
            return null;
        }
        catch (PlatformNotSupportedException)
        {
            return $"BinaryFormatter was removed from .NET 9+ (always throws PlatformNotSupportedException on .NET {Environment.Version}); run the benchmark's .NET Framework build to measure it (esp record --backend etw --framework net472, on Windows)";
        }
        catch (NotSupportedException e)
        {
            return $"BinaryFormatter is disabled in this process ({e.Message.TrimEnd('.')}); it is only enabled by the unsafe AppContext switch System.Runtime.Serialization.EnableUnsafeBinaryFormatterSerialization, which this tool does not set";
        }
    }
}
