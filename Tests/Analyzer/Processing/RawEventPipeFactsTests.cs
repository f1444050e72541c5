using EtwSerializerProfiler.Analyzer.Processing;

namespace EtwSerializerProfiler.Tests.Analyzer.Processing;

/// <summary>The raw pass reports the process as TraceLog does for EventPipe traces: from the ProcessInfo event's command line.</summary>
public sealed class RawEventPipeFactsTests
{
    [Theory]
    [InlineData("/usr/share/dotnet/dotnet exec /x/esp.dll analyze", "dotnet")]
    [InlineData("\"C:\\dotnet\\dotnet.exe\" bench.dll", "dotnet")]
    [InlineData("\"C:\\Program Files\\dotnet\\dotnet.exe\" bench.dll", "Program")] // TraceLog splits at the first space, quotes or not
    [InlineData("/work/bin/SerializerBenchmark.dll", "SerializerBenchmark")]
    [InlineData("/opt/app/run.sh --fast", "run.sh")]
    [InlineData("", "Process(42)")]
    [InlineData(null, "Process(42)")]
    public void A_process_is_named_from_its_command_line_as_TraceLog_names_it(string? commandLine, string name) =>
        Assert.Equal(name, RawEventPipeFacts.NameOf(commandLine, 42));
}
