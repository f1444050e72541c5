using System.Text.Json;

namespace EtwSerializerProfiler.Common;

/// <summary>
/// The one manifest field an analysis needs (<see cref="KernelSessionInfo.CpuSamplePeriodNs"/> of
/// <see cref="TraceManifest.Kernel"/>), read with a forward-only <see cref="Utf8JsonReader"/> instead of
/// <see cref="TraceManifest.TryLoad"/>.
/// </summary>
/// <remarks>
/// Why: the serializer's first deserialization in a process builds the manifest's metadata (about forty properties of
/// a dozen types, each a framework generic over a framework type that no image here can precompile), and that was
/// 100 ms of CPU on the thread that reads the kernel session, which the whole analysis then waited for
/// (docs/analyzer.md#speed). The names come from the record's properties through the manifest's own naming policy
/// (<see cref="TraceManifest.JsonOptions"/>, camelCase), so the record stays the contract;
/// Tests/Common/Contracts/ManifestKernelPeriodTests.cs checks this against manifests the record wrote.
/// Where <see cref="TraceManifest.TryLoad"/> refuses a whole manifest for one damaged or missing field elsewhere, this
/// still finds a valid period: the rest of the file does not make the period wrong.
/// </remarks>
public static class ManifestKernelPeriod
{
    private static readonly string KernelName = JsonNamingPolicy.CamelCase.ConvertName(nameof(TraceManifest.Kernel));
    private static readonly string PeriodName = JsonNamingPolicy.CamelCase.ConvertName(nameof(KernelSessionInfo.CpuSamplePeriodNs));

    /// <returns>The period in nanoseconds, or null: no file, not JSON, no kernel session, or no positive whole number there.</returns>
    public static long? TryRead(string? path)
    {
        if (path is null || !File.Exists(path)) return null;
        try { return TryParse(File.ReadAllBytes(path)); }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException) { return null; }
    }

    public static long? TryParse(ReadOnlySpan<byte> utf8)
    {
        try
        {
            var reader = new Utf8JsonReader(utf8);
            if (!reader.Read() || reader.TokenType != JsonTokenType.StartObject) return null;
            return FindInObject(ref reader, KernelName) && reader.TokenType == JsonTokenType.StartObject
                && FindInObject(ref reader, PeriodName) && reader.TokenType == JsonTokenType.Number
                && reader.TryGetInt64(out var ns) && ns > 0 ? ns : null;
        }
        catch (JsonException) { return null; }
    }

    /// <summary>
    /// From an object's start, moves to the value of its property <paramref name="name"/> (the last one, as the
    /// serializer keeps the last of duplicates); false when the object has none.
    /// </summary>
    private static bool FindInObject(ref Utf8JsonReader reader, string name)
    {
        var depth = reader.CurrentDepth;
        var found = false;
        var value = default(Utf8JsonReader);
        while (reader.Read() && reader.CurrentDepth > depth)
        {
            if (reader.TokenType != JsonTokenType.PropertyName) continue;
            var match = reader.ValueTextEquals(name);
            if (!reader.Read()) return false;
            if (match) { found = true; value = reader; }
            reader.Skip();
        }
        if (found) reader = value;
        return found;
    }
}
