using System.IO.Compression;
using System.Text.Json;

namespace EtwSerializerProfiler.Tests.Analyzer.Reports;

/// <summary>A --firefox file's JSON, read back.</summary>
public static class FirefoxProfileFile
{
    public static JsonElement Read(string path)
    {
        using var gzip = new GZipStream(File.OpenRead(path), CompressionMode.Decompress);
        return JsonDocument.Parse(gzip).RootElement.Clone();
    }
}
