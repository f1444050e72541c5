using System.Reflection;

namespace EtwSerializerProfiler.Benchmark.Serializers;

/// <summary>What a serializer preserves. Missing capabilities are reported by verification, not treated as failures.</summary>
[Flags]
public enum Capabilities
{
    None = 0,
    /// <summary>Private fields/properties round-trip (BookShelf.Secret).</summary>
    PrivateMembers = 1,
    /// <summary>Object identity survives: N references to one string come back as one instance.</summary>
    SharedReferences = 2,
    /// <summary>Binary output (vs text).</summary>
    Binary = 4,
    /// <summary>Works without runtime code generation (trimming/AOT friendly).</summary>
    NoRuntimeCodegen = 8,
}

/// <summary>
/// One serializer under test. Adding a serializer is one subclass in this folder: the catalog finds it by
/// reflection, the stack-tags generator reads Name and the class name, the CLI lists it.
/// Subclasses mark Serialize/Deserialize with [MethodImpl(MethodImplOptions.NoInlining)] so each serializer's
/// own frame is on the stack and stack tags can attribute samples to it.
/// </summary>
public abstract class Serializer
{
    /// <summary>The name users type in --serializers and see in tables and traces.</summary>
    public abstract string Name { get; }

    /// <summary>Wire format, e.g. "JSON", "XML", "Binary XML", "Protobuf".</summary>
    public abstract string Format { get; }

    public abstract Capabilities Capabilities { get; }

    /// <summary>A type from the serializer's library, so the version column names the library, not this repo.</summary>
    protected virtual Type LibraryType => GetType();

    /// <summary>The library's assembly, or null when the serializer is this benchmark's own code (its stack tags find it in any app).</summary>
    public string? LibraryAssemblyName => LibraryType.Assembly == typeof(Serializer).Assembly ? null : LibraryType.Assembly.GetName().Name;

    /// <summary>
    /// The namespace the library's code lives in: the assembly's own name when its namespaces start with it (all of
    /// YamlDotNet, parser included), else the serializer type's (System.Xml.Serialization inside System.Private.Xml).
    /// </summary>
    public string? LibraryNamespace => LibraryAssemblyName is not { } assembly ? null
        : LibraryType.Namespace is { } ns && (ns == assembly || ns.StartsWith(assembly + ".", StringComparison.Ordinal)) ? assembly : LibraryType.Namespace;

    /// <summary>Non-null when the serializer cannot run in this process at all (e.g. BinaryFormatter on .NET 9+).</summary>
    public virtual string? UnsupportedReason => null;

    /// <summary>Non-null when this data type cannot be handled (e.g. XmlSerializer and dictionaries).</summary>
    public virtual string? UnsupportedDataReason(Type dataType) => null;

    public string Version
    {
        get
        {
            var asm = LibraryType.Assembly;
            var info = asm.GetCustomAttribute<AssemblyInformationalVersionAttribute>()?.InformationalVersion;
            var file = asm.GetCustomAttribute<AssemblyFileVersionAttribute>()?.Version;
            var v = file ?? info ?? asm.GetName().Version?.ToString() ?? "?";
            var plus = v.IndexOf('+', StringComparison.Ordinal);
            return plus > 0 ? v[..plus] : v;
        }
    }

    public abstract void Serialize(object graph, Stream stream);

    public abstract object Deserialize(Type type, Stream stream);

    public override string ToString() => Name;
}
