using EtwSerializerProfiler.Recorder.Etw;
using EtwSerializerProfiler.Recorder.Profiles;

namespace EtwSerializerProfiler.Recorder.Scripts;

/// <summary>
/// Everything `esp scripts generate` writes for the Windows tools, rendered from the same profile model and the same
/// ETW plan as `esp record --backend etw`, so a profile change reaches all of them at once.
/// </summary>
public static class WindowsToolFiles
{
    public const string DefaultProfile = "default";
    /// <summary>The user session the scripts start; its prefix lets `esp cleanup` stop it too.</summary>
    public static readonly string ScriptSessionName = EtwSessionNames.Prefix + "Script";

    public static EtwSessionPlan PlanFor(TraceProfile profile) =>
        EtwSessionPlan.For(profile, ScriptSessionName, EtwSessionLayout.KernelLoggerAndUserSession);

    public static IReadOnlyList<GeneratedFile> Generate(TraceProfile profile)
    {
        var plan = PlanFor(profile);
        return
        [
            .. TracelogScripts.Generate(plan),
            .. XperfScripts.Generate(plan),
            WprProfileGenerator.Generate(plan, profile.Description),
            .. WpaRegionsGenerator.Generate(),
        ];
    }
}
