using System.Reflection;
using System.Reflection.Metadata;
using System.Reflection.PortableExecutable;
using System.Text;

namespace EtwSerializerProfiler.Analyzer.Reports.Html;

/// <summary>
/// The scripts and styles inlined into every report. Chartist (the chart library) is not kept in this repository:
/// it comes from the ReportGenerator NuGet package, which ships chartist.min.js and chartist.min.css as resources
/// of ReportGenerator.Core.dll. The build embeds that DLL (Analyzer.csproj); here its resources are read with a
/// PEReader, without loading or running any of its code. report.js and report.css are this project's own.
/// </summary>
internal sealed class ReportAssets
{
    private const string ReportGeneratorResource = "ReportGenerator.Core.dll";
    private const string ChartistPrefix = "Palmmedia.ReportGenerator.Core.Reporting.Builders.Rendering.resources.";
    private static readonly Lazy<ReportAssets> Loaded = new(Load);

    public required string ChartistJs { get; init; }
    public required string ChartistCss { get; init; }
    public required string ReportJs { get; init; }
    public required string ReportCss { get; init; }
    /// <summary>E.g. "Chartist.js 0.11.4 from ReportGenerator 5.6.0", for the page's footer.</summary>
    public required string Credit { get; init; }

    public static ReportAssets Instance => Loaded.Value;

    private static ReportAssets Load()
    {
        var own = typeof(ReportAssets).Assembly;
        using var dll = own.GetManifestResourceStream(ReportGeneratorResource)
            ?? throw new InvalidOperationException($"{ReportGeneratorResource} is not embedded in {own.GetName().Name}: the build did not restore the ReportGenerator package");
        using var pe = new PEReader(dll);
        var metadata = pe.GetMetadataReader();
        var resources = ReadResources(pe, metadata);
        string Chartist(string name) => resources.TryGetValue(ChartistPrefix + name, out var text)
            ? text
            : throw new InvalidOperationException($"ReportGenerator.Core.dll no longer ships {name}: pin a ReportGenerator version that does (docs/report.md)");
        var js = Chartist("chartist.min.js");
        var chartistVersion = System.Text.RegularExpressions.Regex.Match(js, @"Chartist\.js ([0-9.]+)").Groups[1].Value;
        var rgVersion = metadata.GetAssemblyDefinition().Version;
        return new ReportAssets
        {
            ChartistJs = js,
            ChartistCss = Chartist("chartist.min.css"),
            ReportJs = Own(own, "report.js"),
            ReportCss = Own(own, "report.css"),
            Credit = $"Chartist.js {chartistVersion} (MIT), as shipped in ReportGenerator {rgVersion.Major}.{rgVersion.Minor}.{rgVersion.Build}",
        };
    }

    private static Dictionary<string, string> ReadResources(PEReader pe, MetadataReader metadata)
    {
        var result = new Dictionary<string, string>(StringComparer.Ordinal);
        var directory = pe.PEHeaders.CorHeader?.ResourcesDirectory ?? default;
        if (directory.Size == 0) return result;
        var block = pe.GetSectionData(directory.RelativeVirtualAddress);
        foreach (var handle in metadata.ManifestResources)
        {
            var resource = metadata.GetManifestResource(handle);
            if (!resource.Implementation.IsNil) continue; // lives in another file
            var name = metadata.GetString(resource.Name);
            if (!name.StartsWith(ChartistPrefix, StringComparison.Ordinal)) continue;
            // Each embedded resource is a 4-byte length followed by its bytes, at its offset in the resources block.
            var reader = block.GetReader((int)resource.Offset, block.Length - (int)resource.Offset);
            var length = reader.ReadInt32();
            result[name] = Decode(reader.ReadBytes(length));
        }
        return result;
    }

    private static string Own(Assembly assembly, string name)
    {
        using var stream = assembly.GetManifestResourceStream("EtwSerializerProfiler.Report." + name)
            ?? throw new InvalidOperationException($"report asset {name} is not embedded");
        using var reader = new StreamReader(stream, Encoding.UTF8);
        return reader.ReadToEnd();
    }

    private static string Decode(ReadOnlySpan<byte> bytes)
    {
        if (bytes.StartsWith(Encoding.UTF8.Preamble)) bytes = bytes[Encoding.UTF8.Preamble.Length..];
        return Encoding.UTF8.GetString(bytes).Replace("\r\n", "\n", StringComparison.Ordinal);
    }
}
