using EtwSerializerProfiler.Cli;
using EtwSerializerProfiler.Cli.Terminal;
using EtwSerializerProfiler.Common;

// The verbs are composed in EspCommandLine.cs (one file per verb in Commands/, shared options in CommonOptions.cs).

// An esp that was killed could not remove its temp sockets and conversions: whatever a dead esp left goes now, on
// the core start-up leaves idle (about 15 ms of it with a busy temp folder), done before esp exits.
var sweep = Task.Run(() => EspTempFiles.SweepStale());
// The manifest's JSON contract on that core too: the analysis waits for the manifest before its pass (docs/speed.md).
_ = Task.Run(TraceManifest.Prepare);

using var cancel = new CancellationTokenSource();
Console.CancelKeyPress += (_, e) =>
{
    // First Ctrl+C: stop cleanly (sessions stopped, files flushed). A second one kills the tool.
    if (cancel.IsCancellationRequested) return;
    e.Cancel = true;
    cancel.Cancel();
};
var exit = await EspCommandLine.InvokeAsync(args, new SystemConsole(), cancel.Token);
await sweep;
return exit;
