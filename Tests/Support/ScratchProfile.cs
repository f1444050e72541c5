using System.Text.Json.Nodes;
using EtwSerializerProfiler.Recorder.Profiles;

namespace EtwSerializerProfiler.Tests.Support;

/// <summary>The default profile, renamed and changed, written alone to a profiles file for `esp record --profiles FILE`.</summary>
public static class ScratchProfile
{
    /// <summary>Writes DIR/NAME.profiles.json with the changed default profile as NAME; returns the file.</summary>
    public static string Write(string dir, string name, Action<JsonNode> change)
    {
        var profiles = JsonNode.Parse(File.ReadAllText(ProfileCatalog.DefaultPath))!;
        var profile = profiles["profiles"]!.AsArray().Single(p => (string?)p!["name"] == "default")!.DeepClone();
        profile["name"] = name;
        change(profile);
        var file = Path.Combine(dir, name + ".profiles.json");
        File.WriteAllText(file, new JsonObject { ["profiles"] = new JsonArray(profile) }.ToJsonString());
        return file;
    }
}
