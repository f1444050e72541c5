namespace EtwSerializerProfiler.Recorder.Scripts;

/// <summary>A file `esp scripts generate` writes, by its path relative to the repository root.</summary>
public sealed record GeneratedFile(string RelativePath, string Content);
