namespace EtwSerializerProfiler.Analyzer.Model;

/// <summary>
/// How sites are written in every format (the JSON's "exceptionsByType" and "contentionMsByFrame" keys, the
/// whole-trace tables): "Type at Module!Method", then " [stack tag]" where the site has one (a thread's).
/// </summary>
internal static class SiteText
{
    public static string Of(CodeSite site) => site.Tag is null ? site.Name : $"{site.Name} [{site.Tag}]";

    public static string Of(ExceptionSite site) => $"{site.Type} at {Of(site.Thrower)}";
}
