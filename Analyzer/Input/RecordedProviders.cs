using System.Diagnostics.Tracing;
using System.Globalization;
using System.Text.Json;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Input;

/// <summary>
/// What the recording session enabled, from the trace folder's manifest.json (<see cref="TraceManifest.Providers"/>):
/// so an event family with no events can be told apart as "enabled, none happened" or "not recorded". A trace without
/// a manifest (dotnet-trace, PerfView, a bare .nettrace) does not say what its session enabled: <see cref="From"/> is
/// null and the answer is "unknown".
/// </summary>
internal sealed class RecordedProviders
{
    private readonly Dictionary<string, (ulong Keywords, EventLevel Level)> _providers;

    private RecordedProviders(Dictionary<string, (ulong Keywords, EventLevel Level)> providers) => _providers = providers;

    /// <summary>The manifest's providers; null without a readable manifest, or one written for another trace file.</summary>
    public static RecordedProviders? From(string? manifestPath, string tracePath)
    {
        if (manifestPath is null || !File.Exists(manifestPath)) return null;
        try { return Parse(File.ReadAllBytes(manifestPath), Path.GetFileName(tracePath)); }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException) { return null; }
    }

    /// <summary>
    /// Read with a <see cref="JsonDocument"/>, not the manifest's serializer: two fields of a small file, without the
    /// serializer's start-up cost (<see cref="ManifestKernelPeriod"/> says why that matters).
    /// </summary>
    public static RecordedProviders? Parse(ReadOnlySpan<byte> utf8, string traceFileName)
    {
        try
        {
            using var doc = JsonDocument.Parse(utf8.ToArray());
            var root = doc.RootElement;
            if (root.ValueKind != JsonValueKind.Object || !root.TryGetProperty(Name(nameof(TraceManifest.Providers)), out var list) || list.ValueKind != JsonValueKind.Array) return null;
            // A manifest beside a trace it did not write (a bare .nettrace copied into a recording's folder) says nothing of it.
            if (root.TryGetProperty(Name(nameof(TraceManifest.TraceFile)), out var file) && file.ValueKind == JsonValueKind.String
                && !string.Equals(file.GetString(), traceFileName, StringComparison.OrdinalIgnoreCase)) return null;
            var providers = new Dictionary<string, (ulong, EventLevel)>(StringComparer.OrdinalIgnoreCase);
            foreach (var p in list.EnumerateArray())
            {
                if (p.ValueKind != JsonValueKind.Object || !p.TryGetProperty(Name(nameof(ManifestProvider.Name)), out var name) || name.GetString() is not { } n) continue;
                var keywords = p.TryGetProperty(Name(nameof(ManifestProvider.Keywords)), out var k) && k.GetString() is { } hex
                    && ulong.TryParse(hex.StartsWith("0x", StringComparison.OrdinalIgnoreCase) ? hex[2..] : hex, NumberStyles.HexNumber, CultureInfo.InvariantCulture, out var mask) ? mask : 0;
                var level = p.TryGetProperty(Name(nameof(ManifestProvider.Level)), out var l) && Enum.TryParse<EventLevel>(l.GetString(), ignoreCase: true, out var lv) ? lv : EventLevel.Informational;
                providers[n] = (keywords, level);
            }
            return new RecordedProviders(providers);
        }
        // GetString throws InvalidOperationException on a value of another kind or a string of invalid UTF-8 (a damaged file).
        catch (Exception ex) when (ex is JsonException or InvalidOperationException) { return null; }
    }

    /// <summary>Whether the session enabled <paramref name="keyword"/> of <paramref name="provider"/> at <paramref name="level"/> or more.</summary>
    public bool Enabled(string provider, ulong keyword, EventLevel level) =>
        _providers.TryGetValue(provider, out var p) && (p.Keywords & keyword) != 0 && (p.Level == EventLevel.LogAlways || p.Level >= level);

    private static string Name(string property) => JsonNamingPolicy.CamelCase.ConvertName(property);
}
