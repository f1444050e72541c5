using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Cli.Commands;

/// <summary>
/// Verbs that need the benchmark's serializer classes, found by reflection (Benchmark/Serializers/SerializerCatalog):
/// `record` and `stacktags`. The native esp (Cli/NativeAot.targets), built for fast analysis, does not carry those
/// classes; its publish puts the managed esp beside it (managed/), and these verbs become that esp, the process
/// replaced in place (execv, as git runs its subcommands): the same arguments, terminal, environment and process id,
/// so Ctrl+C, exit codes and child processes behave as they do in the managed build.
/// </summary>
internal static partial class ManagedEsp
{
    /// <summary>The native esp: compiled ahead of time, no code generated at run time.</summary>
    public static bool IsNativeBuild => !RuntimeFeature.IsDynamicCodeSupported;

    /// <summary>Where the native publish puts the managed esp (Cli/NativeAot.targets).</summary>
    public static string Folder => Path.Combine(AppContext.BaseDirectory, "managed");

    /// <summary>In the managed esp, returns; in the native one, becomes the managed esp with the same command line, or throws why it cannot.</summary>
    public static void Require(string verb)
    {
        if (!IsNativeBuild) return;
        var apphost = Path.Combine(Folder, "esp");
        var dll = Path.Combine(Folder, "esp.dll");
        if (!File.Exists(dll))
            throw new UsageException($"the native esp runs '{verb}' as the managed esp published beside it ({dll}), which is missing: publish with scripts/publish-native.sh, or run the managed build (dotnet run -c Release --project Cli -- {verb} ...)");
        // The apphost finds the runtime as `dotnet tool` installs do (DOTNET_ROOT, the global install); dotnet on PATH otherwise.
        string[] argv = File.Exists(apphost) ? [apphost, .. Environment.GetCommandLineArgs()[1..]] : ["dotnet", dll, .. Environment.GetCommandLineArgs()[1..]];
        Console.Out.Flush();
        Console.Error.Flush();
        var error = Exec(argv);
        throw new UsageException($"could not start the managed esp ({argv[0]}): {Marshal.GetPInvokeErrorMessage(error)}");
    }

    /// <summary>execvp: returns only when the process could not be replaced, with errno.</summary>
    private static unsafe int Exec(string[] argv)
    {
        var strings = new nint[argv.Length + 1];
        try
        {
            for (var i = 0; i < argv.Length; i++) strings[i] = Marshal.StringToCoTaskMemUTF8(argv[i]);
            fixed (nint* p = strings) ExecVp((byte*)strings[0], p);
            return Marshal.GetLastPInvokeError();
        }
        finally
        {
            foreach (var s in strings) Marshal.FreeCoTaskMem(s);
        }
    }

    [LibraryImport("libc", EntryPoint = "execvp", SetLastError = true)]
    private static unsafe partial int ExecVp(byte* file, nint* argv);
}
