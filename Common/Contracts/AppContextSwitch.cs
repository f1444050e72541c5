namespace EtwSerializerProfiler.Common;

/// <summary>
/// One `--appcontext Name=true|false` assignment. Parsed by the benchmark, which sets the switch, and by the recorder,
/// which also puts it into the traced process's runtimeconfig; one parser so both accept and reject the same input.
/// </summary>
public static class AppContextSwitch
{
    public static KeyValuePair<string, bool> Parse(string assignment)
    {
        var eq = assignment.IndexOf('=', StringComparison.Ordinal);
        if (eq <= 0) throw new UsageException($"--appcontext expects Name=true|false, got '{assignment}'");
        var value = assignment[(eq + 1)..].Trim();
        if (!bool.TryParse(value, out var on))
            throw new UsageException($"--appcontext {assignment[..eq]}: value must be true or false, got '{value}'");
        return KeyValuePair.Create(assignment[..eq].Trim(), on);
    }
}
